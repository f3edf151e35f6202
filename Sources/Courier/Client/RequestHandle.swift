import NIOConcurrencyHelpers

/// A request that is running: await its value, watch its state, or cancel it.
///
/// Cancelling the handle, or the task that awaits ``value``, cancels the exchange and frees
/// its connection.
public final class RequestHandle<Value: Sendable>: Sendable {
    /// The request's identifier, as event hooks see it.
    public let id: CourierRequestID
    private let task: Task<Value, any Error>
    private let stateBox: NIOLockedValueBox<RequestState>
    private let scheduler: Scheduler
    private let progress: ProgressReporter

    init(
        id: CourierRequestID, stateBox: NIOLockedValueBox<RequestState>, task: Task<Value, any Error>,
        scheduler: Scheduler, progress: ProgressReporter
    ) {
        self.id = id
        self.stateBox = stateBox
        self.task = task
        self.scheduler = scheduler
        self.progress = progress
    }

    /// The progress of the request's body as it is sent, throttled like
    /// ``CourierRequest/uploadProgress``: the latest value first, if there is one, then each new
    /// one; the sequence ends when the request ends. Each access returns a new sequence.
    ///
    /// ```swift
    /// let handle = client.start(upload)
    /// for await progress in handle.uploadProgress {
    ///     print("\(Int((progress.fractionCompleted ?? 0) * 100)) %")
    /// }
    /// let response = try await handle.value
    /// ```
    public var uploadProgress: AsyncStream<TransferProgress> { progress.updates() }

    /// Changes the request's priority while it waits for a slot; it then starts before
    /// waiting requests of lower priority. No effect once it is in flight.
    public func changePriority(to priority: RequestPriority) {
        scheduler.changePriority(of: id, to: priority)
    }

    /// The request's current state.
    public var state: RequestState { stateBox.withLockedValue { $0 } }

    /// The decoded value, once the request finishes.
    public var value: Value {
        get async throws { try await task.valueCancelledWithCaller }
    }

    /// Cancels the request; awaiting ``value`` then throws ``CourierError/Kind/cancelled``.
    public func cancel() { task.cancel() }
}

extension CourierClient {
    /// Starts `request` in a new task and returns its handle at once.
    public func start<Value>(_ request: CourierRequest<Value>) -> RequestHandle<Value> {
        start(request) { _, _ in }
    }

    /// Starts `request` and calls `completion` with its outcome before the handle's value is
    /// available.
    func start<Value>(
        _ request: CourierRequest<Value>,
        completion: @escaping @Sendable (CourierRequestID, Result<Value, any Error>) -> Void
    ) -> RequestHandle<Value> {
        let id = CourierRequestID()
        let state = NIOLockedValueBox(RequestState.ready)
        let progress = ProgressReporter(callback: request.uploadProgress)
        let task = Task {
            do {
                let value = try await self.perform(request, id: id, state: state, progress: progress).value!
                progress.finish(succeeded: true)
                completion(id, .success(value))
                return value
            } catch {
                progress.finish()
                completion(id, .failure(error))
                throw error
            }
        }
        return RequestHandle(id: id, stateBox: state, task: task, scheduler: scheduler, progress: progress)
    }
}

extension Task where Failure == any Error {
    /// The task's value; cancelling the task that awaits it cancels this task too.
    var valueCancelledWithCaller: Success {
        get async throws {
            try await withTaskCancellationHandler {
                try await value
            } onCancel: {
                cancel()
            }
        }
    }
}
