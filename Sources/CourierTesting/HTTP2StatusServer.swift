import CourierDemoServer
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL

/// An HTTPS server on `127.0.0.1` that speaks HTTP/2 only, and answers every request with a
/// header block whose `:status` is exactly the text it was given (`""`, `"42"`, `"-5"`,
/// `"2000"`…), then the body `hi`, then (when there are any) trailers: those it was given,
/// and each trailer of the request echoed as `echo-NAME`.
///
/// Its own checks of what it sends are off, so that it can send what no real server should.
/// Call ``shutdown()`` when done.
public final class HTTP2StatusServer: Sendable {
    private let listener: LoopbackListener

    /// The server's URL, `https://127.0.0.1:PORT/`.
    public var url: URL { URL(string: "https://127.0.0.1:\(listener.port)/")! }

    private init(listener: LoopbackListener) {
        self.listener = listener
    }

    /// Starts a server presenting `tls` that answers with `:status` `status`, and ends each
    /// response with `trailers` and the request's own trailers echoed.
    public static func start(status: String, tls: TestServerTLS, trailers: [(String, String)] = []) async throws -> HTTP2StatusServer {
        let context = try tls.makeContext(applicationProtocols: ["h2"])
        let listener = try await LoopbackListener.bind { sync in
            try sync.addHandler(NIOSSLServerHandler(context: context))
            var connection = NIOHTTP2Handler.ConnectionConfiguration()
            connection.headerBlockValidation = .disabled
            connection.contentLengthValidation = .disabled
            _ = try sync.configureHTTP2Pipeline(
                mode: .server, connectionConfiguration: connection, streamConfiguration: .init()
            ) { stream in
                stream.eventLoop.makeCompletedFuture {
                    try stream.pipeline.syncOperations.addHandler(StatusResponder(status: status, trailers: trailers))
                }
            }
        }
        return HTTP2StatusServer(listener: listener)
    }

    /// Stops listening and closes every connection.
    public func shutdown() async throws {
        try await listener.shutdown()
    }
}

/// Answers one HTTP/2 stream once its request has ended.
private final class StatusResponder: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let status: String
    private var trailers: [(String, String)]
    private var sawHead = false

    init(status: String, trailers: [(String, String)]) {
        self.status = status
        self.trailers = trailers
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let ended: Bool
        switch unwrapInboundIn(data) {
        case .headers(let headers):
            // A header block after the first is the request's trailers.
            if sawHead { trailers += headers.headers.map { ("echo-" + $0.name, $0.value) } }
            sawHead = true
            ended = headers.endStream
        case .data(let data): ended = data.endStream
        default: ended = false
        }
        guard ended else { return }
        let head = HPACKHeaders([(":status", status), ("content-length", "2")])
        context.write(wrapOutboundOut(.headers(.init(headers: head))), promise: nil)
        let body = ByteBuffer(string: "hi")
        guard !trailers.isEmpty else {
            context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
            return
        }
        context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: HPACKHeaders(trailers), endStream: true))), promise: nil)
    }
}
