import NIOConcurrencyHelpers
import NIOCore

/// Whether a streamed request body has been handed over whole (its last piece and its end),
/// for a response that arrives before it has.
///
/// A server may answer a request with a success before it has read the whole body; HTTP/1.1
/// then still expects the rest of the body on the connection. AsyncHTTPClient 1.37 finishes
/// such a request as soon as the response is read, drops the end of the body that comes
/// later, and so keeps the connection leased for ever: each such answer would cost the pool a
/// connection, until every request waits. A delegate that waits here before it reads a
/// success's body keeps the request open until the body has gone, and the connection is
/// released as usual.
final class BodySending: Sendable {
    private enum State {
        case sending(waiting: [EventLoopPromise<Void>])
        case ended
    }

    private let state = NIOLockedValueBox(State.sending(waiting: []))

    /// The body was handed over whole, or failed: whoever waits goes on.
    func ended() {
        let waiting = state.withLockedValue { state -> [EventLoopPromise<Void>] in
            guard case .sending(let waiting) = state else { return [] }
            state = .ended
            return waiting
        }
        for promise in waiting { promise.succeed() }
    }

    /// Completes on `loop` once the body has ended.
    func whenEnded(on loop: any EventLoop) -> EventLoopFuture<Void> {
        state.withLockedValue { state in
            guard case .sending(var waiting) = state else { return loop.makeSucceededVoidFuture() }
            let promise = loop.makePromise(of: Void.self)
            waiting.append(promise)
            state = .sending(waiting: waiting)
            return promise.futureResult
        }
    }
}
