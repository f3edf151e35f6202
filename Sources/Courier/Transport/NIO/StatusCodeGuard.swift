import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// Refuses a response head whose status code is outside 100–999 (RFC 9110 §15), before the
/// HTTP client behind it sees the head: on Courier's own HTTP/1.1 connections. On
/// AsyncHTTPClient's, the ``ExchangeTap`` that sits in the same place applies the same rule
/// (``refusal(of:)``), which saves each part of a response one handler.
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
        if case .head(let head) = unwrapInboundIn(data), let refusal = StatusCodeGuard.refusal(of: head) {
            refused = true
            context.fireErrorCaught(refusal)
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    /// The error that refuses `head`, when its status code is outside 100–999; `nil` when the
    /// code may pass. The one rule for every HTTP/1.1 connection: this guard's, and the
    /// ``ExchangeTap``'s on AsyncHTTPClient's connections.
    static func refusal(of head: HTTPResponseHead) -> InvalidStatusCode? {
        (100...999).contains(head.status.code) ? nil : InvalidStatusCode(code: String(head.status.code))
    }

    /// Adds a guard after the response decoder of `channel`'s pipeline. Call on its loop.
    static func install(on channel: any Channel) throws {
        let sync = channel.pipeline.syncOperations
        let decoder = try sync.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self)
        try sync.addHandler(StatusCodeGuard(), position: .after(decoder))
    }
}

/// The same guard for the streams of an HTTP/2 connection: refuses a response header block
/// whose `:status` is not three digits from 100 to 999 (RFC 9113 §8.3.2), before NIOHTTP2's
/// translation to HTTP/1 types reads it.
///
/// That translation stops the process on an empty `:status` (it takes its first character
/// unchecked, NIOHTTP2 1.46 `HTTP2Stream.swift`) and on a negative one (`HTTPResponseStatus`
/// makes a `UInt` of it); a code from 0 to 99 reaches AsyncHTTPClient's precondition as on
/// HTTP/1.1. Placed first on each stream, this handler fails the stream with
/// ``InvalidStatusCode`` instead. Trailers (a later block without `:status`) pass.
final class HTTP2StatusCodeGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload

    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if case .headers(let block) = unwrapInboundIn(data), let status = block.headers.first(name: ":status"),
            HTTP2StatusCodeGuard.code(status) == nil
        {
            refused = true
            context.fireErrorCaught(InvalidStatusCode(code: status))
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    /// The code `status` names, if it is three ASCII digits from 100 to 999.
    static func code(_ status: String) -> Int? {
        let digits = Array(status.utf8)
        guard digits.count == 3, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let code = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (100...999).contains(code) ? code : nil
    }

    /// Adds a guard first on `stream`'s pipeline. Call on its loop.
    static func install(on stream: any Channel) throws {
        try stream.pipeline.syncOperations.addHandler(HTTP2StatusCodeGuard(), position: .first)
    }
}

/// A response's status code was outside 100–999, or not a number.
struct InvalidStatusCode: Error {
    /// The code as the server sent it.
    let code: String

    /// The code for a message: quoted when it is short printable ASCII, otherwise described.
    var shown: String {
        let bytes = Array(code.utf8)
        guard !bytes.isEmpty, bytes.count <= 16, bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return bytes.isEmpty ? "an empty status code" : "an unreadable status code"
        }
        return "status code \(code)"
    }
}
