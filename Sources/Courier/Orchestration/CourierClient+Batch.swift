extension CourierClient {
    /// Sends every request of `batch`, at most ``Batch/maximumConcurrency`` at a time, in the
    /// order they were added, and returns their results.
    ///
    /// - Parameters:
    ///   - batch: The requests and the batch's mode.
    ///   - progress: Called with "n of m done" once before the first request and again after
    ///     each one finishes.
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
        let total = batch.count
        let width = max(1, batch.maximumConcurrency)
        var outcomes = [Result<any Sendable, any Error>?](repeating: nil, count: total)
        var firstFailure: Int?
        var report = BatchProgress(completed: 0, failed: 0, total: total)
        progress?(report)

        await withTaskGroup(of: (Int, Result<any Sendable, any Error>).self) { group in
            var next = 0
            var segments = batch.segments.makeIterator()
            var segment: Batch.Segment?
            var offset = 0
            func startNext() -> Bool {
                let stopped = batch.mode == .failFast && firstFailure != nil
                guard next < total, !stopped, !Task.isCancelled else { return false }
                if segment == nil || offset == segment!.count {
                    segment = segments.next()
                    offset = 0
                }
                let index = next
                let (send, position) = (segment!.send, offset)
                next += 1
                offset += 1
                group.addTask {
                    do {
                        return (index, .success(try await send(self, position)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
                return true
            }

            while next < width, startNext() {}
            for await (index, outcome) in group {
                outcomes[index] = outcome
                report.completed += 1
                if case .failure = outcome {
                    report.failed += 1
                    if firstFailure == nil {
                        firstFailure = index
                        if batch.mode == .failFast { group.cancelAll() }
                    }
                }
                progress?(report)
                _ = startNext()
            }
        }

        let reason = firstFailure.map { "request \($0) failed and the fail-fast batch stopped" } ?? "the batch was cancelled"
        let notSent = CourierError(.cancelled, "Not sent: \(reason).")
        var unsent = 0
        let settled = outcomes.map { outcome -> Result<any Sendable, any Error> in
            if let outcome { return outcome }
            unsent += 1
            return .failure(notSent)
        }
        if unsent > 0 {
            report.completed += unsent
            report.failed += unsent
            progress?(report)
        }
        return (settled, firstFailure)
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
