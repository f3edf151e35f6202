import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore

extension CourierAsyncHTTPClientTransport {
    /// Sends `request` to `origin` through `pool` and waits for what `delegate` makes of the
    /// response; `status` reads a response's status code. Returns the response and when the
    /// exchange started.
    ///
    /// With an `admission`, the exchange starts when it holds its scheduler slot (see
    /// ``Admission``), and gives the slot back as soon as its response is complete, on the loop
    /// that read it: a request waiting for the slot then starts on that loop, on the connection
    /// just freed, without waking a task first. A failure leaves the slot to the caller, which
    /// knows what the failure means. A caller that runs on one of the loops (see
    /// ``CourierClient/makeTaskExecutor()``) waits for its slot instead, and gives it back
    /// itself: its task resumes on its own loop, where its exchange starts and its response
    /// arrives, so handing the start over would only add a hop.
    ///
    /// When the route says so, the request is handed to AsyncHTTPClient on the route's loop,
    /// in one hop if it starts elsewhere. Started there, everything AsyncHTTPClient does to
    /// start it (the task's callbacks, the pool's idle timer, the first write) happens on the
    /// thread that owns the connection, instead of each waking that thread from outside.
    nonisolated(nonsending) func exchange<Delegate: HTTPClientResponseDelegate>(
        _ request: HTTPClient.Request, delegate: Delegate, to origin: String, through pool: LoopClients,
        deadline: NIODeadline?, watch: ReadWatchdog.Watch?, regions: SentRegions?,
        admission: Admission?, status: @escaping @Sendable (Delegate.Response) -> Int
    ) async throws -> (response: Delegate.Response, started: ClockReading) where Delegate: Sendable, Delegate.Response: Sendable {
        let slot = CancelSlot<HTTPClient.Task<Delegate.Response>>()
        let logger = self.logger
        let watchdogs = self.watchdogs
        // A caller on one of the loops keeps its loop's own instance. It waits for its slot
        // here: its task resumes on its own loop, which is where its exchange starts.
        let callerRoute = pool.callerRoute()
        // The admission the start is handed to while it waits, if any.
        var handedOver = admission
        if callerRoute != nil, let admission {
            do { try await admission.wait() } catch { throw Admission.Refused(reason: error) }
            handedOver = nil
        }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                @Sendable func send(along route: LoopClients.Route) {
                    let started = ClockReading.now
                    let task = route.client.execute(
                        request: request, delegate: delegate, eventLoop: route.preference,
                        deadline: deadline, logger: logger
                    )
                    let watchdog = watchdogs.on(route.loop)
                    if let watch {
                        watchdog.start(watch) { task.fail(reason: HTTPClientError.readTimeout) }
                    }
                    task.futureResult.whenComplete { result in
                        if let watch { watchdog.end(watch) }
                        regions?.close()
                        pool.release(route)
                        continuation.resume(with: result.map { ($0, started) })
                        // A caller on this loop runs next on this thread and gives the slot
                        // back itself.
                        guard callerRoute == nil, let admission, case .success(let response) = result else { return }
                        // AsyncHTTPClient calls this from inside the read that completed the
                        // response, and has already put its connection back in its pool: the
                        // slot goes back now, and the request granted it starts once this turn
                        // of the loop is done with that read.
                        let starts = admission.scheduler.release(admission, outcome: .response(status: status(response)))
                        if !starts.isEmpty {
                            route.loop.execute { for start in starts { start(nil) } }
                        }
                    }
                    slot.fill(task)
                }
                /// Starts the exchange on the route it takes now: here, or on its loop.
                @Sendable func begin() {
                    let route = callerRoute ?? pool.sharedRoute(to: origin)
                    if route.startsOnLoop, !route.loop.inEventLoop {
                        route.loop.execute { send(along: route) }
                    } else {
                        send(along: route)
                    }
                }
                guard let handedOver, handedOver.arrivedWaiting else { return begin() }
                // Run here, or where the slot it waits for is freed.
                handedOver.start { refusal in
                    guard let refusal else { return begin() }
                    continuation.resume(throwing: Admission.Refused(reason: refusal))
                }
            }
        } onCancel: {
            slot.cancel()
            admission?.withdraw(with: CancellationError())
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
