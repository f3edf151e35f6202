import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server for the transfer benchmark, so that the server is never the bottleneck:
/// `GET /files/NAME` sends a file from its folder with `sendfile` (through a `FileRegion`), a
/// `.br` or `.zst` file with its `Content-Encoding`, and any
/// request with a body has the body read and thrown away, answering with the byte count.
enum FileServer {
    /// Child side: serves `folder` until stdin closes, after printing the port.
    static func serve(folder: String) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(FileServerHandler(folder: folder))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        FileHandle.standardOutput.write(Data("\(channel.localAddress!.port!)\n".utf8))
        while !FileHandle.standardInput.availableData.isEmpty {}
        try await channel.close()
        try await group.shutdownGracefully()
    }
}

private final class FileServerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let folder: String
    private var received = 0
    private var head: HTTPRequestHead?

    init(folder: String) { self.folder = folder }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            received = 0
            if head.headers[canonicalForm: "expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
            }
        case .body(let chunk):
            received += chunk.readableBytes
        case .end:
            guard let head else { return }
            if head.method == .GET, head.uri.hasPrefix("/files/") {
                sendFile(named: String(head.uri.dropFirst("/files/".count)), context: context, version: head.version)
            } else {
                respond(context: context, version: head.version, status: .ok, text: "received \(received) bytes\n")
            }
        }
    }

    private func sendFile(named name: String, context: ChannelHandlerContext, version: HTTPVersion) {
        guard !name.contains("/"), !name.hasPrefix("."),
            let handle = try? NIOFileHandle(_deprecatedPath: folder + "/" + name),
            let size = try? handle.withUnsafeFileDescriptor({ lseek($0, 0, SEEK_END) })
        else {
            respond(context: context, version: version, status: .notFound, text: "no such file\n")
            return
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "\(size)")
        headers.add(name: "Content-Type", value: "application/octet-stream")
        // A file kept compressed goes out in its coding, as a server sends a precompressed file.
        if name.hasSuffix(".br") { headers.add(name: "Content-Encoding", value: "br") }
        if name.hasSuffix(".zst") { headers.add(name: "Content-Encoding", value: "zstd") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .ok, headers: headers))), promise: nil)
        let region = FileRegion(fileHandle: handle, readerIndex: 0, endIndex: Int(size))
        context.write(wrapOutboundOut(.body(.fileRegion(region))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in try? handle.close() }
    }

    private func respond(context: ChannelHandlerContext, version: HTTPVersion, status: HTTPResponseStatus, text: String) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "\(text.utf8.count)")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
