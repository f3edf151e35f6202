import Courier
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

/// What one WebSocket connection went through that the frames' handler does not tell: the
/// server's close frame, a ping the server left unanswered, the first failure. Shared by the
/// channel's ``FrameWatch`` and the messages' iterator.
final class Session: Sendable {
    private struct State {
        var url: URL?
        var closure: CourierWebSocket.Closure?
        var pingTimedOut = false
        var failure: (any Error)?
    }

    let pingInterval: Duration?
    private let state = NIOLockedValueBox(State())

    init(pingInterval: Duration?) {
        self.pingInterval = pingInterval
    }

    /// The URL the connection was opened to, for the errors' sake; set once the server
    /// switched.
    var url: URL? {
        get { state.withLockedValue { $0.url } }
        set { state.withLockedValue { $0.url = newValue } }
    }

    /// The server's close frame, once it came.
    var closure: CourierWebSocket.Closure? { state.withLockedValue { $0.closure } }

    /// The first failure of the messages, as the frames' handler threw it.
    var failure: (any Error)? { state.withLockedValue { $0.failure } }

    func received(_ closure: CourierWebSocket.Closure) {
        state.withLockedValue { $0.closure = $0.closure ?? closure }
    }

    func pingsWentUnanswered() {
        state.withLockedValue { $0.pingTimedOut = true }
    }

    func failed(_ error: any Error) {
        state.withLockedValue { $0.failure = $0.failure ?? error }
    }

    /// Why the messages ended without error, when that is not a close handshake: a frame the
    /// decoder refused, the server stopped answering pings, or the connection ended without a
    /// close frame.
    func endError() -> CourierError? {
        let (closure, pingTimedOut, failure) = state.withLockedValue { ($0.closure, $0.pingTimedOut, $0.failure) }
        if let failure, Self.closeCode(of: failure) != nil { return error(for: failure) }
        if pingTimedOut {
            return CourierError(
                .timeout,
                "The WebSocket server stopped answering pings\(pingInterval.map { " (sent every \($0))" } ?? ""); the connection was closed.",
                url: url, underlyingError: UnansweredPing()
            )
        }
        guard closure == nil else { return nil }
        var error = CourierError(.connectionFailed, "The WebSocket connection ended without a close frame from the server.", url: url)
        error.requestMayHaveBeenSent = true
        return error
    }

    /// `error`, from the frames' handler or the connection, as a ``CourierError``.
    func error(for error: any Error) -> CourierError {
        if let error = error as? CourierError { return error }
        switch Self.closeCode(of: error) {
        case .messageTooLarge?:
            return CourierError(
                .responseTooLarge,
                "A WebSocket message or frame from the server is larger than the configuration allows; raise CourierWebSocket.Configuration.maximumMessageSize or maximumFrameSize.",
                url: url, underlyingError: error
            )
        case .some:
            return CourierError(.malformedResponse, "The WebSocket server broke the protocol: \(error).", url: url, underlyingError: error)
        case nil:
            if let timeout = endError(), timeout.kind == .timeout { return timeout }
            return CourierError(.connectionFailed, "The WebSocket connection failed: \(error).", url: url, underlyingError: error)
        }
    }

    /// The close code a failure of the frames' handler or decoder stands for, if it is one.
    static func closeCode(of error: any Error) -> CourierWebSocket.CloseCode? {
        switch error {
        case NIOWebSocketError.invalidFrameLength: return .messageTooLarge
        case is NIOWebSocketError: return .protocolError
        default: break
        }
        // swift-websocket's handler throws its close code wrapped in an error of its own.
        for child in Mirror(reflecting: error).children {
            if let code = child.value as? WebSocketErrorCode { return CourierWebSocket.CloseCode(code) }
        }
        return nil
    }
}

/// The underlying error of the ``Courier/CourierError/Kind/timeout`` that ends a connection
/// whose server left a ping unanswered.
package struct UnansweredPing: Error, CustomStringConvertible {
    package var description: String { "a ping went unanswered" }
}

/// Watches the frames of a WebSocket connection for ``Session``, right behind the frame
/// decoder: the server's close frame, and the decoder's failures. It also keeps the connection
/// alive on the channel's loop, whether or not the messages are being read: it answers the
/// server's pings, and pings the server every ``Session/pingInterval``; a ping still
/// unanswered when the next is due sends a close (1001) and ends the connection. Confined to
/// the channel's loop.
final class FrameWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let session: Session
    private var pinging: RepeatedTask?
    private var unanswered: UInt64?
    private var pings: UInt64 = 0

    init(session: Session) {
        self.session = session
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let interval = session.pingInterval, context.channel.isActive else { return }
        let period = TimeAmount.nanoseconds(max(1, interval.nanoseconds))
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        pinging = context.eventLoop.scheduleRepeatedTask(initialDelay: period, delay: period) { _ in
            let (watch, context) = bound.value
            watch.ping(context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        pinging?.cancel()
        pinging = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        pinging?.cancel()
        pinging = nil
        context.fireChannelInactive()
    }

    private func ping(context: ChannelHandlerContext) {
        guard unanswered == nil else {
            pinging?.cancel()
            pinging = nil
            session.pingsWentUnanswered()
            var payload = context.channel.allocator.buffer(capacity: 2)
            payload.write(webSocketErrorCode: .goingAway)
            context.writeAndFlush(wrapOutboundOut(Self.masked(.connectionClose, payload)), promise: nil)
            context.close(promise: nil)
            return
        }
        pings &+= 1
        unanswered = pings
        var payload = context.channel.allocator.buffer(capacity: 8)
        payload.writeInteger(pings)
        context.writeAndFlush(wrapOutboundOut(Self.masked(.ping, payload)), promise: nil)
    }

    /// A frame from the client, masked as RFC 6455 §5.3 requires.
    private static func masked(_ opcode: WebSocketOpcode, _ payload: ByteBuffer) -> WebSocketFrame {
        let key = WebSocketMaskingKey((0..<4).map { _ in UInt8.random(in: .min ... .max) })
        return WebSocketFrame(fin: true, opcode: opcode, maskKey: key, data: payload)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .ping:
            // Answered here, read or not; a ping cut into frames is a protocol error, left to
            // the frames' handler.
            guard frame.fin else { break }
            context.writeAndFlush(wrapOutboundOut(Self.masked(.pong, frame.unmaskedData)), promise: nil)
            return
        case .pong:
            var payload = frame.unmaskedData
            if let number = payload.readInteger(as: UInt64.self), number == unanswered { unanswered = nil }
            return
        case .connectionClose:
            var payload = frame.unmaskedData
            let code = payload.readInteger(as: UInt16.self).map(CourierWebSocket.CloseCode.init) ?? CourierWebSocket.CloseCode(1005)
            let reason = payload.readString(length: payload.readableBytes) ?? ""
            session.received(CourierWebSocket.Closure(code: code, reason: reason))
        default:
            break
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        session.failed(error)
        context.fireErrorCaught(error)
    }
}
