import NIOConcurrencyHelpers

/// The shared state of a running batch: which request starts next, every result so far, and
/// the progress report, taken under one lock by the batch's workers.
///
/// A batch runs as ``Batch/maximumConcurrency`` worker tasks that each take the next request
/// when their last one ends, rather than a task per request: a request then costs no task of
/// its own and no wake-up of a coordinating task.
final class BatchRun: Sendable {
    /// A request to send: its index in the batch, and how to send it.
    struct Work: Sendable {
        let index: Int
        let send: @Sendable (CourierClient) async throws -> any Sendable
    }

    private struct State {
        var segments: [Batch.Segment]
        var segment = 0
        var offset = 0
        var next = 0
        var outcomes: [Result<any Sendable, any Error>?]
        var firstFailure: Int?
        var report: BatchProgress
    }

    private let mode: Batch.Mode
    private let progress: (@Sendable (BatchProgress) -> Void)?
    private let state: NIOLockedValueBox<State>

    init(_ batch: Batch, progress: (@Sendable (BatchProgress) -> Void)?) {
        mode = batch.mode
        self.progress = progress
        let report = BatchProgress(completed: 0, failed: 0, total: batch.count)
        state = NIOLockedValueBox(State(segments: batch.segments, outcomes: Array(repeating: nil, count: batch.count), report: report))
        progress?(report)
    }

    /// The next request to send, or `nil` once every request has started, a fail-fast batch
    /// has failed, or the calling task is cancelled.
    func next() -> Work? {
        state.withLockedValue { state -> Work? in
            let stopped = mode == .failFast && state.firstFailure != nil
            guard state.next < state.outcomes.count, !stopped, !Task.isCancelled else { return nil }
            while state.offset == state.segments[state.segment].count {
                state.segment += 1
                state.offset = 0
            }
            // Made under the lock, so that generated requests are made in the batch's order
            // however the workers interleave.
            let send = state.segments[state.segment].request(state.offset)
            state.offset += 1
            state.next += 1
            return Work(index: state.next - 1, send: send)
        }
    }

    /// Records the outcome of request `index` and reports progress; returns whether a
    /// fail-fast batch must now stop its requests in flight.
    func finish(_ index: Int, _ outcome: Result<any Sendable, any Error>) -> Bool {
        state.withLockedValue { state -> Bool in
            state.outcomes[index] = outcome
            state.report.completed += 1
            var stops = false
            if case .failure = outcome {
                state.report.failed += 1
                if state.firstFailure == nil {
                    state.firstFailure = index
                    stops = mode == .failFast
                }
            }
            // Under the lock, so that the reports arrive in order: a reader keeping the last
            // one keeps the latest.
            progress?(state.report)
            return stops
        }
    }

    /// Every result, with a ``CourierError/Kind/cancelled`` error for each request never sent,
    /// and the index of the first request that failed.
    func settle() -> (outcomes: [Result<any Sendable, any Error>], firstFailure: Int?) {
        state.withLockedValue { state in
            let reason = state.firstFailure.map { "request \($0) failed and the fail-fast batch stopped" } ?? "the batch was cancelled"
            let notSent = CourierError(.cancelled, "Not sent: \(reason).")
            var unsent = 0
            let settled = state.outcomes.map { outcome -> Result<any Sendable, any Error> in
                if let outcome { return outcome }
                unsent += 1
                return .failure(notSent)
            }
            if unsent > 0 {
                state.report.completed += unsent
                state.report.failed += unsent
                progress?(state.report)
            }
            return (settled, state.firstFailure)
        }
    }
}
