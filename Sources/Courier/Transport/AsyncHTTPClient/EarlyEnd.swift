import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// A response that ended while its request body was still being sent, for the two sides of
/// one exchange whose body is streamed.
///
/// - Status 300 or more: the body is not wanted any more. A write waiting for
///   AsyncHTTPClient is released and the task that writes the body is cancelled, so that
///   whatever it waits on (the next piece of a body produced elsewhere) lets go.
/// - Below 300 (a full-duplex exchange, where the server had said all it would): the body
///   goes on, and the response's reader is told of the end as soon as it has received the
///   body's last byte, without waiting for the request body to end (AsyncHTTPClient would
///   deliver that end only after the request's; see ``ExchangeTap``).
final class EarlyEnd: Sendable {
    /// How a response of status below 300 ended: after how many bytes of body (as received,
    /// before any content coding was undone), and with which trailers.
    struct Completion: Sendable {
        let bodyBytes: Int
        let trailers: HTTPHeaders?
    }

    fileprivate struct State {
        var isEnded = false
        /// The write waiting for AsyncHTTPClient, and its number.
        var waiter: (write: UInt64, continuation: CheckedContinuation<Void, any Error>)?
        var writes: UInt64 = 0
        var task: Task<Void, Never>?
        /// The early end of a response below 300, once it came.
        var completion: Completion?
        /// The body bytes the reader's delegate has received.
        var delivered = 0
        /// What the reader's delegate does once it has received the whole body.
        var onCompletion: (@Sendable (HTTPHeaders?) -> Void)?
        var isCompleted = false
    }

    private let state = NIOLockedValueBox(State())

    /// Whether the response ended before the body did.
    var isEnded: Bool { state.withLockedValue { $0.isEnded } }

    /// The task that writes the body, cancelled if the response ends first.
    func watch(_ task: Task<Void, Never>) {
        let ended = state.withLockedValue { state in
            state.task = task
            return state.isEnded
        }
        if ended { task.cancel() }
    }

    /// Writes `part` and waits until AsyncHTTPClient takes more, or the response ends.
    ///
    /// - Throws: ``ResponseEndedEarly`` once the response has ended; what the write fails with.
    func write(_ part: IOData, to writer: HTTPClient.Body.StreamWriter) async throws {
        let written = writer.write(part)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let write = state.withLockedValue { state -> UInt64? in
                guard !state.isEnded else { return nil }
                state.writes &+= 1
                state.waiter = (state.writes, continuation)
                return state.writes
            }
            guard let write else { return continuation.resume(throwing: ResponseEndedEarly()) }
            written.whenComplete { [state] result in
                let waiter = state.withLockedValue { state -> CheckedContinuation<Void, any Error>? in
                    guard let waiter = state.waiter, waiter.write == write else { return nil }
                    state.waiter = nil
                    return waiter.continuation
                }
                waiter?.resume(with: result)
            }
        }
    }

    /// The response, of status 300 or more, ended first.
    func end() {
        let (waiter, task) = state.withLockedValue { state in
            state.isEnded = true
            defer { state.waiter = nil }
            return (state.waiter?.continuation, state.task)
        }
        waiter?.resume(throwing: ResponseEndedEarly())
        task?.cancel()
    }

    /// The response, of status below 300, ended first, as `completion` says.
    func complete(_ completion: Completion) {
        let ready = state.withLockedValue { state -> (@Sendable (HTTPHeaders?) -> Void)? in
            state.completion = completion
            return state.takeReady()
        }
        ready?(completion.trailers)
    }

    /// Runs `body` with the response's trailers once the response has ended early and its
    /// delegate has received all of it (now, if that is already so). Set by the delegate,
    /// once it has the head.
    func onCompletion(_ body: @escaping @Sendable (HTTPHeaders?) -> Void) {
        let ready = state.withLockedValue { state -> (HTTPHeaders?, (@Sendable (HTTPHeaders?) -> Void))? in
            state.onCompletion = body
            return state.takeReady().map { (state.completion?.trailers, $0) }
        }
        if let (trailers, body) = ready { body(trailers) }
    }

    /// The delegate received `count` more bytes of body (as they came, still coded).
    func delivered(_ count: Int) {
        let ready = state.withLockedValue { state -> (HTTPHeaders?, (@Sendable (HTTPHeaders?) -> Void))? in
            state.delivered += count
            return state.takeReady().map { (state.completion?.trailers, $0) }
        }
        if let (trailers, body) = ready { body(trailers) }
    }
}

extension EarlyEnd.State {
    /// What to run, once, when the response ended early and all of its body was delivered.
    fileprivate mutating func takeReady() -> (@Sendable (HTTPHeaders?) -> Void)? {
        guard !isCompleted, let completion, delivered >= completion.bodyBytes, let onCompletion else { return nil }
        isCompleted = true
        self.onCompletion = nil
        return onCompletion
    }
}

/// The response ended before the request body did: the rest of the body is not sent.
struct ResponseEndedEarly: Error {}
