import NIOConcurrencyHelpers

/// Turns the bytes a transfer moves into throttled ``TransferProgress`` values, for a callback
/// and for any number of async sequences.
///
/// A transfer that starts again (a redirect or a retry sending the body again) starts again
/// from zero. ``finish(succeeded:)`` ends the sequences when the request is over.
package final class ProgressReporter: Sendable {
    private struct State: Sendable {
        var throttle = ProgressThrottle()
        var current = TransferProgress(completedBytes: 0, totalBytes: nil)
        var latest: TransferProgress?
        var subscribers: [Int: AsyncStream<TransferProgress>.Continuation] = [:]
        var nextSubscriber = 0
        var isFinished = false
        /// The most a transport counted on its own (see ``received(_:of:)``): counts up to it
        /// are not reported again.
        var countedElsewhere: Int64 = 0
    }

    private let state = NIOLockedValueBox(State())
    private let callback: (@Sendable (TransferProgress) -> Void)?
    private let now: @Sendable () -> ContinuousClock.Instant

    init(
        callback: (@Sendable (TransferProgress) -> Void)? = nil,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.callback = callback
        self.now = now
    }

    /// A transfer of `total` bytes (`nil` when unknown) starts, from zero or, for a resumed
    /// download, from the `completed` bytes already on disk.
    func begin(total: Int64?, completed: Int64 = 0) {
        update(isFinal: false) { state in
            state.throttle.reset()
            state.current = TransferProgress(completedBytes: completed, totalBytes: total)
        }
    }

    /// `count` more bytes were transferred.
    func advance(by count: Int) {
        update(isFinal: false) { $0.current.completedBytes += Int64(count) }
    }

    /// A transport that receives the body where the client cannot count it (a download task
    /// writing a file) has `completed` bytes of `total` (`nil` when unknown). Reported as they
    /// come; when the client then copies those bytes, its counts are held back until they pass
    /// them, so that progress never moves backwards.
    func received(_ completed: Int64, of total: Int64?) {
        update(isFinal: false, isCountedElsewhere: true) { state in
            guard completed > state.current.completedBytes else { return }
            state.current = TransferProgress(completedBytes: completed, totalBytes: total ?? state.current.totalBytes)
            state.countedElsewhere = max(state.countedElsewhere, completed)
        }
    }

    /// The transfer has moved its last byte.
    func end() {
        update(isFinal: true) { _ in }
    }

    /// The request is over: every sequence ends after the values it holds, and later reports
    /// are dropped.
    ///
    /// A request that `succeeded` handed its body to the connection in full; the report of its
    /// last bytes may still be on its way from the task that wrote them, so a body of known
    /// length is reported complete here, once, if it was not yet.
    func finish(succeeded: Bool = false) {
        let (last, subscribers) = state.withLockedValue { state -> (TransferProgress?, [AsyncStream<TransferProgress>.Continuation]) in
            var last: TransferProgress?
            if succeeded, !state.isFinished, let total = state.current.totalBytes, state.latest?.completedBytes != total {
                state.current.completedBytes = total
                state.latest = state.current
                last = state.current
                for subscriber in state.subscribers.values { subscriber.yield(state.current) }
            }
            state.isFinished = true
            defer { state.subscribers = [:] }
            return (last, Array(state.subscribers.values))
        }
        if let last { callback?(last) }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// The values from now on, starting with the latest one if there is one; the sequence
    /// ends when the request is over.
    func updates() -> AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream<TransferProgress>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = state.withLockedValue { state -> Int? in
            if let latest = state.latest { continuation.yield(latest) }
            guard !state.isFinished else { return nil }
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLockedValue { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    private func update(isFinal: Bool, isCountedElsewhere: Bool = false, _ change: (inout State) -> Void) {
        let instant = now()
        let delivery = state.withLockedValue { state -> TransferProgress? in
            guard !state.isFinished else { return nil }
            change(&state)
            if !isCountedElsewhere, state.countedElsewhere > 0 {
                // The client copying bytes the transport already reported: nothing new until
                // the count passes them, and no second report of the same end.
                if isFinal ? state.latest == state.current : state.current.completedBytes <= state.countedElsewhere { return nil }
            }
            guard state.throttle.admits(state.current, at: instant, isFinal: isFinal) else { return nil }
            state.latest = state.current
            // Under the lock, so that no value lands after the sequences were finished.
            for subscriber in state.subscribers.values { subscriber.yield(state.current) }
            return state.current
        }
        guard let delivery else { return }
        callback?(delivery)
    }
}
