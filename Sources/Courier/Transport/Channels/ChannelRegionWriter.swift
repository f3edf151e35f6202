import NIOCore
import NIOHTTP1

/// A plain-text HTTP/1.1 connection of ``ChannelTransport`` as the connection of a
/// ``FileRegionBody``: a channel's write completes once its part has gone to the socket, so the
/// future of a region's write says when `sendfile` has read all of it.
struct ChannelRegionWriter: RegionWriter {
    let channel: any Channel

    func write(_ part: IOData) async throws -> EventLoopFuture<Void> {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(HTTPClientRequestPart.body(part), promise: promise)
        let written = promise.futureResult
        // Bytes are waited for here; a region is waited for by the body, which hands the
        // next one over first so that the socket never runs dry.
        if case .byteBuffer = part { try await written.get() }
        return written
    }

    func closeWhenEnded(_ file: NIOFileHandle) {
        // A body that stops early closes the connection, whose closing fails every write it
        // still holds first.
        channel.closeFuture.whenComplete { _ in try? file.close() }
    }
}
