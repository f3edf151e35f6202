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
/// and each trailer of the request echoed as `echo-NAME`. A request for `/duplex` is answered
/// as the demo server's route of that name is, while it arrives (see `DuplexScript`).
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
    /// The `/duplex` exchange of the stream, once its request head named that route.
    private var duplex: DuplexScript?

    init(status: String, trailers: [(String, String)]) {
        self.status = status
        self.trailers = trailers
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if duplex != nil || opensDuplex(data, context: context) {
            return answerDuplex(data, context: context)
        }
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

    /// Starts a `/duplex` exchange when `data` is a request head for it.
    private func opensDuplex(_ data: NIOAny, context: ChannelHandlerContext) -> Bool {
        guard !sawHead, case .headers(let headers) = unwrapInboundIn(data),
            let path = headers.headers.first(name: ":path"), var script = DuplexScript(target: path)
        else { return false }
        sawHead = true
        if let refusal = script.refusal {
            // The rest of the stream is read and dropped.
            let head = HPACKHeaders([(":status", String(refusal)), ("content-length", "0")])
            context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: head, endStream: true))), promise: nil)
            duplex = script
            return true
        }
        let head = HPACKHeaders([(":status", "200"), ("content-type", "application/octet-stream")])
        context.write(wrapOutboundOut(.headers(.init(headers: head))), promise: nil)
        send(script.opening(), context: context)
        duplex = script
        if headers.endStream { finishDuplex(echoing: [], context: context) }
        return true
    }

    private func answerDuplex(_ data: NIOAny, context: ChannelHandlerContext) {
        guard var script = duplex else { return }
        switch unwrapInboundIn(data) {
        case .data(let frame):
            if case .byteBuffer(let piece) = frame.data {
                let (bytes, ends) = script.received(piece)
                duplex = script
                send(bytes, context: context)
                if ends { endDuplex(context: context) }
            }
            if frame.endStream { finishDuplex(echoing: [], context: context) }
        case .headers(let headers) where headers.endStream:
            finishDuplex(echoing: headers.headers.map { ($0.name, $0.value) }, context: context)
        default:
            break
        }
    }

    private func send(_ bytes: [UInt8], context: ChannelHandlerContext) {
        guard !bytes.isEmpty else { return }
        context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(ByteBuffer(bytes: bytes))))), promise: nil)
    }

    /// The request ended: the response ends too, if it has not.
    private func finishDuplex(echoing trailers: [(String, String)], context: ChannelHandlerContext) {
        guard var script = duplex, script.requestEnded() else { return }
        duplex = script
        endDuplex(context: context, echoing: trailers)
    }

    private func endDuplex(context: ChannelHandlerContext, echoing trailers: [(String, String)] = []) {
        guard let script = duplex else { return }
        let fields = HPACKHeaders(script.trailers(echoing: trailers))
        context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: fields, endStream: true))), promise: nil)
    }
}
