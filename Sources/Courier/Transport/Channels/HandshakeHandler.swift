import NIOConcurrencyHelpers
import NIOCore
import NIOTLS

/// What a connection of ``ChannelTransport`` speaks once its TLS handshake is done.
enum NegotiatedProtocol: Sendable {
    /// HTTP/1.1: one exchange at a time, through the connection's own ``ExchangeHandler``.
    case http1
    /// HTTP/2: each exchange on a stream of its own (see ``HTTP2Streams``).
    case http2(HTTP2Streams)
}

/// Waits for the TLS handshake of a connection of ``ChannelTransport``, within its connect
/// limit, then sets the connection up for the protocol ALPN chose and leaves the pipeline.
///
/// The setup runs on the loop, inside the event that reports the handshake's end, so the
/// first bytes the server sends after it (an HTTP/2 server's settings) already meet the
/// handlers of their protocol. All state is confined to the channel's loop.
final class HandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    /// Sets the pipeline up for the negotiated protocol (`nil` when ALPN chose none).
    typealias Setup = (any Channel, String?) throws -> NegotiatedProtocol

    private var promise: EventLoopPromise<NegotiatedProtocol>?
    private let deadline: NIODeadline
    private var timer: Scheduled<Void>?
    private let fault: Connection.Fault
    private let setup: Setup

    init(promise: EventLoopPromise<NegotiatedProtocol>, deadline: NIODeadline, fault: Connection.Fault, setup: @escaping Setup) {
        self.promise = promise
        self.deadline = deadline
        self.fault = fault
        self.setup = setup
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = bound.value
            guard handler.promise != nil else { return }
            handler.fault.withLockedValue { $0 = $0 ?? HandshakeTimeout() }
            handler.fail(HandshakeTimeout())
            context.close(promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let tls = event as? TLSUserEvent, case .handshakeCompleted(let negotiated) = tls, let promise else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        self.promise = nil
        timer?.cancel()
        timer = nil
        do {
            let outcome = try setup(context.channel, negotiated)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            promise.succeed(outcome)
        } catch {
            promise.fail(error)
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fault.withLockedValue { $0 = $0 ?? error }
        fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(ExchangeClosed())
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // Also a connection attempt that lost the race to another address.
        timer?.cancel()
        timer = nil
        fail(ExchangeClosed())
    }

    private func fail(_ error: any Error) {
        promise?.fail(error)
        promise = nil
    }
}
