import AsyncHTTPClient
import NIOCore

/// AsyncHTTPClient's stream writer as the connection of a ``FileRegionBody``.
///
/// A write returns once AsyncHTTPClient takes more, or fails once `earlyEnd` tells that the
/// response ended first. The writer's futures complete when the connection can take more, which
/// may be before a region was sent, so `sent` (told by the request's delegate) says when a region
/// has really gone to the socket.
struct StreamWriterRegions: RegionWriter {
    let writer: HTTPClient.Body.StreamWriter
    let earlyEnd: EarlyEnd
    let sent: SentRegions
    /// The request's event loop.
    let loop: any EventLoop

    func write(_ part: IOData) async throws -> EventLoopFuture<Void> {
        let written: EventLoopFuture<Void>
        if case .fileRegion(let region) = part {
            written = sent.expect(region, on: loop)
        } else {
            written = loop.makeSucceededVoidFuture()
        }
        try await earlyEnd.write(part, to: writer)
        return written
    }

    func closeWhenEnded(_ file: NIOFileHandle) {
        sent.closeWhenEnded(file)
    }
}
