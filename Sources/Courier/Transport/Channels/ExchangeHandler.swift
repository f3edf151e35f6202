import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The last handler of an HTTP/1.1 connection of ``ChannelTransport``, or of one stream of an
/// HTTP/2 connection: hands each response to the ``BodyHandoff`` of its exchange.
///
/// Reads are held while the reader has not taken the last body piece, so a slow reader slows
/// the server down instead of filling memory. All state is confined to the channel's loop.
final class ExchangeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    /// Sent down the pipeline before a request: where its response goes (told at the
    /// response's end whether the connection may be used again).
    struct Start: Sendable {
        let handoff: BodyHandoff
        let url: URL
        let method: String
        let decompression: Decompression
        /// The exchange's read-timeout clock (see ``ReadWatchdog``), if it has a limit.
        let watch: ReadWatchdog.Watch?
        /// Run with the response's status, and whether the connection may carry another
        /// exchange, once the response has ended whole, just before its handoff is told,
        /// and before the connection reads anything more: the exchange may give the
        /// connection back then, from the loop.
        var ended: (@Sendable (_ status: Int, _ keepAlive: Bool) -> Void)? = nil
    }

    /// Fired down the pipeline by the ``ReadWatchdog`` when the exchange's server stayed
    /// silent for its read timeout.
    struct ReadTimedOut: Sendable {}

    private let fault: Connection.Fault
    private var exchange: Start?
    /// Undoes the response's content codings, if it has any.
    private var decoder: ContentDecoder?
    private var keepAlive = true
    /// The status of the response being read.
    private var status = 0
    private var awaitingReader = false
    private var queue = CircularBuffer<HTTPClientResponsePart>()
    private var readDeferred = false
    private var isRemoved = false

    init(fault: Connection.Fault) {
        self.fault = fault
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let start = event as? Start else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        exchange = start
        keepAlive = true
        promise?.succeed()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ReadTimedOut {
            abandon(ExchangeTimeout())
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        exchange?.watch?.heard()
        // One read can bring several pieces; each waits until the reader took the last one.
        if awaitingReader || !queue.isEmpty {
            queue.append(part)
        } else {
            deliver(part, context: context)
        }
    }

    private func deliver(_ part: HTTPClientResponsePart, context: ChannelHandlerContext) {
        guard let exchange else { return }
        switch part {
        case .head(let head):
            // An interim 1xx head is followed by the real one.
            guard head.status.code >= 200 || head.status == .switchingProtocols else { return }
            keepAlive = head.isKeepAlive
            status = Int(head.status.code)
            do {
                decoder = try ContentDecoder.make(for: head, method: exchange.method, decompression: exchange.decompression, url: exchange.url)
            } catch {
                return refuse(error, context: context)
            }
            exchange.handoff.receive(head)
        case .body(let received):
            var piece = received
            if let decoder {
                do {
                    piece = try decoder.decode(received)
                } catch {
                    return refuse(error, context: context)
                }
                guard piece.readableBytes > 0 else { return }
            }
            awaitingReader = true
            // Nothing more is read until the reader takes this piece: the silence is the reader's.
            let watch = exchange.watch
            watch?.pause()
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            // A reader already waiting takes the piece at once, and this callback runs here.
            exchange.handoff.offer(piece, on: context.eventLoop).whenComplete { result in
                watch?.resume()
                let (handler, context) = bound.value
                handler.awaitingReader = false
                if case .failure = result {
                    // The reader gave up: the rest of the body is not wanted.
                    handler.keepAlive = false
                    handler.queue.removeAll()
                    if !handler.isRemoved { context.close(promise: nil) }
                } else {
                    handler.drain(context: context)
                }
            }
        case .end(let trailers):
            do {
                try decoder?.finish()
            } catch {
                return refuse(error, context: context)
            }
            decoder = nil
            self.exchange = nil
            // The exchange may give the connection back before its reader is woken: a reader
            // that sends again at once finds it idle.
            exchange.ended?(status, keepAlive)
            exchange.handoff.end(.success(()), trailers: trailers, keepAlive: keepAlive)
        }
    }

    /// Delivers the pieces that waited, then lets reading go on.
    private func drain(context: ChannelHandlerContext) {
        while !awaitingReader, let next = queue.popFirst() {
            deliver(next, context: context)
        }
        // What waited is a burst of its own: no read may follow to tell its end.
        exchange?.handoff.burstEnded()
        if !awaitingReader, readDeferred, !isRemoved {
            readDeferred = false
            context.read()
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // The pieces of one burst of reads reach a waiting reader at once.
        exchange?.handoff.burstEnded()
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        if awaitingReader {
            readDeferred = true
        } else {
            context.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // An error between exchanges (bytes after a response's end, say) is no exchange's:
        // the connection closes, and a request that took it meanwhile sees only that.
        if exchange != nil { fault.withLockedValue { $0 = $0 ?? error } }
        // A peer that closes without TLS's close_notify after a complete response did no harm.
        if !responseComplete { abandon(error) }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !responseComplete { abandon(ExchangeClosed()) }
        keepAlive = false
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        isRemoved = true
        if !responseComplete { abandon(ExchangeClosed()) }
        keepAlive = false
    }

    /// Whether the whole response arrived and its last pieces wait for the reader: they are
    /// still delivered when the connection closes behind them.
    private var responseComplete: Bool {
        if case .end = queue.last { return true }
        return false
    }

    /// Fails the exchange with a response that cannot be read, and closes the connection: the
    /// rest of that response is not wanted.
    private func refuse(_ error: any Error, context: ChannelHandlerContext) {
        keepAlive = false
        decoder = nil
        // What came after a part that cannot be read is not delivered.
        queue.removeAll()
        abandon(error)
        if !isRemoved { context.close(promise: nil) }
    }

    /// Fails the exchange still waiting, if any, with `error`, after the body pieces that
    /// arrived before it and wait for the reader: they are delivered first, decoded.
    private func abandon(_ error: any Error) {
        let queued = queue
        queue.removeAll()
        guard let exchange else { return }
        self.exchange = nil
        var remainder: [ByteBuffer] = []
        for case .body(let received) in queued {
            guard let decoder else {
                remainder.append(received)
                continue
            }
            guard let piece = try? decoder.decode(received) else { break }
            if piece.readableBytes > 0 { remainder.append(piece) }
        }
        decoder = nil
        exchange.handoff.end(.failure(error), after: remainder)
    }
}

/// The connection closed before the response ended.
struct ExchangeClosed: Error {}

/// The server was silent for longer than the exchange's read timeout.
struct ExchangeTimeout: Error {}
