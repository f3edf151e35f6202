import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// The frames of one connection of ``WebSocketEchoServer``, as its path says. Confined to the
/// connection's loop.
final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let path: String
    private let query: [String: String]
    private var messages = 0
    private var closing = false
    private let closes: NIOLockedValueBox<[UInt16]>

    init(uri: String, closes: NIOLockedValueBox<[UInt16]>) {
        self.closes = closes
        let components = URLComponents(string: uri)
        path = components?.path ?? uri
        query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard path == "/send" else { return }
        let count = query["count"].flatMap(Int.init) ?? 1
        let size = query["size"].flatMap(Int.init) ?? 16
        let fragments = max(1, query["fragments"].flatMap(Int.init) ?? 1)
        for _ in 0..<count {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0) }
            let step = max(1, (size + fragments - 1) / fragments)
            var start = 0
            var first = true
            repeat {
                let end = min(size, start + step)
                let frame = WebSocketFrame(fin: end == size, opcode: first ? .binary : .continuation, data: context.channel.allocator.buffer(bytes: bytes[start..<end]))
                context.write(wrapOutboundOut(frame), promise: nil)
                first = false
                start = end
            } while start < size
        }
        context.flush()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .connectionClose:
            var received = frame.unmaskedData
            let number = received.readInteger(as: UInt16.self) ?? 1005
            closes.withLockedValue { $0.append(number) }
            if closing {
                context.close(promise: nil)
                return
            }
            // Answer with the same code, then close.
            var payload = frame.unmaskedData
            let code = payload.readSlice(length: min(2, payload.readableBytes)) ?? ByteBuffer()
            let answer = WebSocketFrame(fin: true, opcode: .connectionClose, data: code)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(answer)).whenComplete { _ in channel.close(promise: nil) }
        case .ping:
            guard path != "/silent" else { return }
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .text, .binary, .continuation:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: frame.fin, opcode: frame.opcode, data: frame.unmaskedData)), promise: nil)
            guard frame.fin else { return }
            messages += 1
            guard messages == 1 else { return }
            if path == "/drop" {
                context.close(promise: nil)
            } else if path == "/close" {
                closing = true
                var payload = context.channel.allocator.buffer(capacity: 64)
                payload.writeInteger(UInt16(query["code"].flatMap(Int.init) ?? 1000))
                payload.writeString(query["reason"] ?? "")
                context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)), promise: nil)
            }
        default:
            break
        }
    }
}

/// Answers a request the server did not switch to WebSocket: `403 Forbidden`, body `no`.
final class RefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var head = HTTPResponseHead(version: .http1_1, status: .forbidden)
        head.headers.add(name: "Content-Length", value: "2")
        head.headers.add(name: "Content-Type", value: "text/plain")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: "no")))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
