import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// A response that ended before the usual way, for the two sides of one exchange whose
/// request body or response body is streamed.
///
/// A response that ended while its request body was still being sent:
/// - Status 300 or more: the body is not wanted any more. A write waiting for
///   AsyncHTTPClient is released and the task that writes the body is cancelled, so that
///   whatever it waits on (the next piece of a body produced elsewhere) lets go.
/// - Below 300 (a full-duplex exchange, where the server had said all it would): the body
///   goes on, and the response's reader is told of the end as soon as it has received the
///   body's last byte, without waiting for the request body to end (AsyncHTTPClient would
///   deliver that end only after the request's; see ``ExchangeTap``).
///
/// A streamed response whose connection failed before its end: AsyncHTTPClient 1.37 drops
/// the body parts it holds for the delegate when a request fails (it hands a delegate at
/// most 50 parts in one turn of the loop, and keeps parts while a delegate's future is
/// pending), so the ``ExchangeTap`` keeps every part it passes on until the delegate has it
/// (``received(_:)``, ``delivered(_:)``), and the reader gets the ones the delegate never saw
/// (``undelivered()``) before the failure: bytes that arrived are not lost.
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
        /// The body parts the connection passed on that the delegate has not received yet,
        /// oldest first, and how many bytes of the first one it has.
        var undelivered = CircularBuffer<ByteBuffer>()
        var deliveredOfFirst = 0
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
            state.forget(count)
            return state.takeReady().map { (state.completion?.trailers, $0) }
        }
        if let (trailers, body) = ready { body(trailers) }
    }

    /// The connection passed `part` of the response body on towards the delegate. Called by
    /// the tap, before the part goes on.
    func received(_ part: ByteBuffer) {
        state.withLockedValue { $0.undelivered.append(part) }
    }

    /// The body bytes the connection passed on that the delegate never received, in order;
    /// none are kept after this.
    func undelivered() -> [ByteBuffer] {
        state.withLockedValue { state in
            guard var first = state.undelivered.first else { return [] }
            first.moveReaderIndex(forwardBy: state.deliveredOfFirst)
            var parts = [first]
            parts.append(contentsOf: state.undelivered.dropFirst())
            state.undelivered.removeAll()
            state.deliveredOfFirst = 0
            return parts.filter { $0.readableBytes > 0 }
        }
    }
}

extension EarlyEnd.State {
    /// Forgets the first `count` bytes of the parts not yet delivered.
    fileprivate mutating func forget(_ count: Int) {
        var left = deliveredOfFirst + count
        while let first = undelivered.first, first.readableBytes <= left {
            left -= first.readableBytes
            undelivered.removeFirst()
        }
        // Parts the tap did not keep (an exchange it could not name) leave nothing to forget.
        deliveredOfFirst = undelivered.isEmpty ? 0 : left
    }

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
