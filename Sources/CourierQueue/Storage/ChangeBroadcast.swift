import Foundation
import NIOConcurrencyHelpers

/// The watchers of a storage's changes: each ``subscribe()`` is a stream that yields when
/// ``announce()`` is called, and ends at ``finish()``.
package final class ChangeBroadcast: Sendable {
    private struct State {
        var watchers: [UUID: AsyncStream<Void>.Continuation] = [:]
        var isFinished = false
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// A new stream of change signals; one signal is kept while the watcher is busy.
    package func subscribe() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let key = UUID()
        let finished = state.withLockedValue { state in
            guard !state.isFinished else { return true }
            state.watchers[key] = continuation
            return false
        }
        if finished {
            continuation.finish()
        } else {
            continuation.onTermination = { [weak self] _ in self?.state.withLockedValue { $0.watchers[key] = nil } }
        }
        return stream
    }

    /// Whether a stream is still being watched.
    package var isWatched: Bool { state.withLockedValue { !$0.watchers.isEmpty } }

    /// Signals every watcher.
    package func announce() {
        for watcher in state.withLockedValue({ Array($0.watchers.values) }) { watcher.yield() }
    }

    /// Ends every stream, and those subscribed later at once.
    package func finish() {
        let watchers = state.withLockedValue { state in
            state.isFinished = true
            defer { state.watchers.removeAll() }
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.finish() }
    }
}
