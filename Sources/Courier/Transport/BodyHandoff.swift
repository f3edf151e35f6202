import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Hands a response from the event loop to an async reader, one body piece at a time.
///
/// A piece the reader has not taken yet is held with the promise its producer waits on; the
/// promise completes only when the reader takes the piece, so the producer never runs more than
/// one piece ahead and a body of any size holds at most one piece here.
final class BodyHandoff: Sendable {
    private struct State {
        var head: (HTTPResponseHead, ContinuousClock.Instant)?
        var headWaiter: CheckedContinuation<(HTTPResponseHead, ContinuousClock.Instant), any Error>?
        var pending: (piece: ByteBuffer, taken: EventLoopPromise<Void>?)?
        var reader: CheckedContinuation<ByteBuffer?, any Error>?
        var outcome: Result<Void, any Error>?
        var isClosed = false
    }

    private let state = NIOLockedValueBox(State())

    /// The response head arrived.
    func receive(_ head: HTTPResponseHead) {
        let waiter = state.withLockedValue { state in
            state.head = (head, .now)
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: (head, .now))
    }

    /// A body piece arrived; the returned future completes when the reader has taken it.
    func offer(_ piece: ByteBuffer, on loop: any EventLoop) -> EventLoopFuture<Void> {
        let promise = loop.makePromise(of: Void.self)
        let reader = state.withLockedValue { state -> CheckedContinuation<ByteBuffer?, any Error>?? in
            if state.isClosed { return .some(nil) }
            if let reader = state.reader {
                state.reader = nil
                return reader
            }
            state.pending = (piece, promise)
            return nil
        }
        switch reader {
        case .none:
            break
        case .some(.none):
            promise.fail(CancellationError())
        case .some(.some(let reader)):
            promise.succeed()
            reader.resume(returning: piece)
        }
        return promise.futureResult
    }

    /// The exchange ended, after its last piece or with a failure. A piece not taken yet is
    /// still delivered before the failure: the bytes arrived, and a resumed download need not
    /// fetch them again.
    func end(_ outcome: Result<Void, any Error>) {
        let (headWaiter, reader, released) = state.withLockedValue { state in
            if state.outcome == nil { state.outcome = outcome }
            defer {
                state.headWaiter = nil
                state.reader = nil
                state.pending?.taken = nil
            }
            return (state.headWaiter, state.reader, state.pending?.taken)
        }
        let failure: any Error
        switch outcome {
        case .success: failure = HTTPClientError.remoteConnectionClosed
        case .failure(let error): failure = error
        }
        released?.succeed()
        headWaiter?.resume(throwing: failure)
        switch outcome {
        case .success: reader?.resume(returning: nil)
        case .failure(let error): reader?.resume(throwing: error)
        }
    }

    /// The reader is done; later pieces are refused. Returns whether the exchange was still
    /// running (the caller then cancels it).
    func close() -> Bool {
        let (running, dropped) = state.withLockedValue { state in
            state.isClosed = true
            defer { state.pending = nil }
            return (state.outcome == nil, state.pending?.taken)
        }
        dropped?.fail(CancellationError())
        return running
    }

    /// Waits for the response head and the instant it arrived.
    func head() async throws -> (HTTPResponseHead, ContinuousClock.Instant) {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLockedValue { state -> Result<(HTTPResponseHead, ContinuousClock.Instant), any Error>? in
                if let head = state.head { return .success(head) }
                if case .failure(let error) = state.outcome { return .failure(error) }
                if state.outcome != nil { return .failure(HTTPClientError.remoteConnectionClosed) }
                state.headWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The next piece, or `nil` after the last one.
    func next() async throws -> ByteBuffer? {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLockedValue { state -> (Result<ByteBuffer?, any Error>, EventLoopPromise<Void>?)? in
                if let pending = state.pending {
                    state.pending = nil
                    return (.success(pending.piece), pending.taken)
                }
                switch state.outcome {
                case .success: return (.success(nil), nil)
                case .failure(let error): return (.failure(error), nil)
                case nil:
                    state.reader = continuation
                    return nil
                }
            }
            guard let (result, taken) = ready else { return }
            taken?.succeed()
            continuation.resume(with: result)
        }
    }
}
