import CourierDemoServer
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL

/// An HTTPS server on `127.0.0.1` that speaks HTTP/2 only, and answers every request with a
/// header block whose `:status` is exactly the text it was given (`""`, `"42"`, `"-5"`,
/// `"2000"`…), then the body `hi`.
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

    /// Starts a server presenting `tls` that answers with `:status` `status`.
    public static func start(status: String, tls: TestServerTLS) async throws -> HTTP2StatusServer {
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
                    try stream.pipeline.syncOperations.addHandler(StatusResponder(status: status))
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

    init(status: String) {
        self.status = status
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let ended: Bool
        switch unwrapInboundIn(data) {
        case .headers(let headers): ended = headers.endStream
        case .data(let data): ended = data.endStream
        default: ended = false
        }
        guard ended else { return }
        let head = HPACKHeaders([(":status", status), ("content-length", "2")])
        context.write(wrapOutboundOut(.headers(.init(headers: head))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(ByteBuffer(string: "hi")), endStream: true))), promise: nil)
    }
}
