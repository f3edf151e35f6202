import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore

extension CourierAsyncHTTPClientTransport {
    /// Sends `request` along `route` and waits for what `delegate` makes of the response.
    ///
    /// When the route says so, the request is handed to AsyncHTTPClient on the route's loop,
    /// in one hop if the caller runs elsewhere. Started there, everything AsyncHTTPClient does
    /// to start it (the task's callbacks, the pool's idle timer, the first write) happens on
    /// the thread that owns the connection, instead of each waking that thread from outside.
    func exchange<Delegate: HTTPClientResponseDelegate>(
        _ request: HTTPClient.Request, delegate: Delegate, route: LoopClients.Route,
        deadline: NIODeadline?, watch: ReadWatchdog.Watch?, regions: SentRegions?
    ) async throws -> Delegate.Response where Delegate: Sendable, Delegate.Response: Sendable {
        let slot = CancelSlot<HTTPClient.Task<Delegate.Response>>()
        let logger = self.logger
        let watchdog = watchdogs.on(route.loop)
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                let start: @Sendable () -> Void = {
                    let task = route.client.execute(
                        request: request, delegate: delegate, eventLoop: route.preference,
                        deadline: deadline, logger: logger
                    )
                    if let watch {
                        watchdog.start(watch) { task.fail(reason: HTTPClientError.readTimeout) }
                    }
                    task.futureResult.whenComplete { result in
                        if let watch { watchdog.end(watch) }
                        regions?.close()
                        continuation.resume(with: result)
                    }
                    slot.fill(task)
                }
                if route.startsOnLoop, !route.loop.inEventLoop {
                    route.loop.execute(start)
                } else {
                    start()
                }
            }
        } onCancel: {
            slot.cancel()
        }
    }
}

/// Something started that can be cancelled from any thread.
protocol Cancellable: Sendable {
    func cancel()
}

extension HTTPClient.Task: Cancellable {}

/// The task of one exchange, for cancelling it from any thread: a cancellation that comes
/// before the task exists cancels it as soon as it does. Copies share one slot; a value around
/// the locked box, rather than a class holding it, costs each exchange one allocation less.
struct CancelSlot<Task: Cancellable>: Sendable {
    private enum State {
        case empty
        case cancelled
        case filled(Task)
    }

    private let state = NIOLockedValueBox(State.empty)

    /// Keeps `task`, cancelling it at once if ``cancel()`` came first.
    func fill(_ task: Task) {
        let cancelled = state.withLockedValue { state -> Bool in
            if case .cancelled = state { return true }
            state = .filled(task)
            return false
        }
        if cancelled { task.cancel() }
    }

    /// Cancels the task, now if it exists, or else as soon as it does.
    func cancel() {
        let task = state.withLockedValue { state -> Task? in
            switch state {
            case .filled(let task): return task
            case .empty: state = .cancelled; return nil
            case .cancelled: return nil
            }
        }
        task?.cancel()
    }
}
