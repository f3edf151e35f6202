extension CourierClient {
    /// Sends every request of `batch`, at most ``Batch/maximumConcurrency`` at a time, in the
    /// order they were added, and returns their results.
    ///
    /// - Parameters:
    ///   - batch: The requests and the batch's mode.
    ///   - progress: Called with "n of m done" once before the first request and again after
    ///     each one finishes: one call at a time, in order, from the task that finished the
    ///     request; keep it short, since the next report waits for it.
    /// - Throws: ``BatchError`` when a request of a ``Batch/Mode/failFast`` batch fails. A
    ///   ``Batch/Mode/settle`` batch does not throw: each failure is in its results.
    ///
    /// Cancelling the calling task cancels the requests in flight; those not yet sent are
    /// never sent, and their results are ``CourierError/Kind/cancelled`` errors.
    public func run(_ batch: Batch, progress: (@Sendable (BatchProgress) -> Void)? = nil) async throws -> BatchResults {
        let (outcomes, firstFailure) = await execute(batch, progress: progress)
        let results = BatchResults(outcomes: outcomes)
        if batch.mode == .failFast, let firstFailure, case .failure(let error) = outcomes[firstFailure] {
            throw BatchError(index: firstFailure, error: error, results: results)
        }
        return results
    }

    /// Starts `batch` in a new task and returns its handle at once, to follow its progress as
    /// an `AsyncSequence`, await its results or cancel it.
    public func start(_ batch: Batch) -> BatchHandle {
        let (stream, continuation) = AsyncStream<BatchProgress>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            defer { continuation.finish() }
            return try await self.run(batch) { continuation.yield($0) }
        }
        return BatchHandle(progress: stream, task: task)
    }

    private func execute(
        _ batch: Batch, progress: (@Sendable (BatchProgress) -> Void)?
    ) async -> (outcomes: [Result<any Sendable, any Error>], firstFailure: Int?) {
        let run = BatchRun(batch, progress: progress)
        // The first requests, as many as may be in flight, all start now: each is taken here
        // before its worker runs, so a failure that comes quickly stops only the requests after
        // them. Each worker then sends one request after another; one that sees a fail-fast
        // batch fail returns true, and the others' requests in flight are cancelled.
        let first = (0..<min(max(1, batch.maximumConcurrency), batch.count)).compactMap { _ in run.next() }
        await withTaskGroup(of: Bool.self) { group in
            for work in first {
                group.addTask {
                    var current: BatchRun.Work? = work
                    while let work = current {
                        let outcome: Result<any Sendable, any Error>
                        do {
                            outcome = .success(try await work.send(self))
                        } catch {
                            outcome = .failure(error)
                        }
                        if run.finish(work.index, outcome) { return true }
                        current = run.next()
                    }
                    return false
                }
            }
            for await stops in group where stops { group.cancelAll() }
        }
        return run.settle()
    }
}

/// A batch that is running: follow its progress, await its results, or cancel it.
public final class BatchHandle: Sendable {
    /// "n of m done", from the start until the batch ends, when the sequence finishes. A
    /// reader slower than the batch skips intermediate values; the last one always arrives.
    public let progress: AsyncStream<BatchProgress>
    private let task: Task<BatchResults, any Error>

    init(progress: AsyncStream<BatchProgress>, task: Task<BatchResults, any Error>) {
        self.progress = progress
        self.task = task
    }

    /// Every request's result, once the batch ends.
    ///
    /// - Throws: ``BatchError`` when a request of a fail-fast batch failed.
    public var results: BatchResults {
        get async throws { try await task.valueCancelledWithCaller }
    }

    /// Cancels the requests in flight; the ones not yet sent are never sent.
    public func cancel() { task.cancel() }
}
