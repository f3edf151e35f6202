import NIOCore
import NIOHTTP1

/// Refuses a response head whose status code is outside 100–599 (RFC 9110 §15), before the
/// HTTP client behind it sees the head.
///
/// A code below 100 would otherwise count as an interim (1xx) response and the body behind it
/// would arrive with no head: AsyncHTTPClient 1.37 stops the process on that (a precondition
/// in its request state machine). Placed right after the response decoder, this handler turns
/// such a head into ``InvalidStatusCode`` on the connection and closes it; nothing of that
/// response reaches the client.
final class StatusCodeGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if case .head(let head) = unwrapInboundIn(data), !(100...599).contains(head.status.code) {
            refused = true
            context.fireErrorCaught(InvalidStatusCode(code: Int(head.status.code)))
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    /// Adds a guard after the response decoder of `channel`'s pipeline. Call on its loop.
    static func install(on channel: any Channel) throws {
        let sync = channel.pipeline.syncOperations
        let decoder = try sync.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self)
        try sync.addHandler(StatusCodeGuard(), position: .after(decoder))
    }
}

/// A response's status code was outside 100–599.
struct InvalidStatusCode: Error {
    let code: Int
}
