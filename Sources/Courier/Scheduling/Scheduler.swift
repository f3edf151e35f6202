import NIOConcurrencyHelpers

/// Holds requests back until a global and a per-host slot are free, starting them in
/// priority order. Every request the client sends takes a slot for each exchange (each
/// redirect hop, each retry attempt) and gives it back when the exchange ends.
final class Scheduler: Sendable {
    private struct Waiter {
        var continuation: UnsafeContinuation<Void, any Error>?
        /// Why the wait ended before a slot came: a cancellation, or the deadline.
        var withdrawn: (any Error & Sendable)?
    }

    private struct Locked {
        var state: SchedulerState
        var waiters: [UInt64: Waiter] = [:]
        /// The ticket a request is waiting with, for priority changes.
        var ticketsByRequest: [CourierRequestID: UInt64] = [:]
        /// The request a waiting ticket belongs to: the reverse of ``ticketsByRequest``.
        var requestsByTicket: [UInt64: CourierRequestID] = [:]
        var nextTicket: UInt64 = 0
        var observers: [UInt64: AsyncStream<Activity>.Continuation] = [:]
        var nextObserver: UInt64 = 0

        var activity: Activity { Activity(waiting: state.waitingCount, inFlight: state.running) }
        /// The activity and who to tell, read under the lock that changed it; no observer, no
        /// copy.
        var change: (Activity, [AsyncStream<Activity>.Continuation]) {
            (activity, observers.isEmpty ? [] : Array(observers.values))
        }

        /// Forgets which request `ticket` belonged to, once it no longer waits.
        mutating func forget(ticket: UInt64) {
            guard let request = requestsByTicket.removeValue(forKey: ticket), ticketsByRequest[request] == ticket else { return }
            ticketsByRequest[request] = nil
        }
    }

    private let locked: NIOLockedValueBox<Locked>

    /// A scheduler with fixed per-host limits, or adaptive ones bounded by `perHostLimit`
    /// when `adaptive` is given.
    init(globalLimit: Int, perHostLimit: Int, adaptive: AdaptiveConcurrency? = nil) {
        let state = SchedulerState(globalLimit: globalLimit, perHostLimit: perHostLimit, adaptive: adaptive)
        locked = NIOLockedValueBox(Locked(state: state))
    }

    /// The wait for a slot outlasted its deadline.
    struct WaitExpired: Error {}

    /// Waits for a slot for `host`; throws `CancellationError` when the task is cancelled
    /// while waiting, and ``WaitExpired`` when `deadline` passes first.
    nonisolated(nonsending) func acquire(
        host: String, priority: RequestPriority, request: CourierRequestID, deadline: ContinuousClock.Instant? = nil
    ) async throws {
        let (ticket, startsNow, activity) = locked.withLockedValue { locked in
            locked.nextTicket += 1
            let ticket = locked.nextTicket
            let startsNow = locked.state.arrive(id: ticket, host: host, priority: priority)
            if !startsNow {
                locked.waiters[ticket] = Waiter()
                locked.ticketsByRequest[request] = ticket
                locked.requestsByTicket[ticket] = request
            }
            return (ticket, startsNow, locked.change)
        }
        publish(activity)
        if startsNow { return }
        // Only a request that waits pays for the timer that bounds its wait.
        let expiry = deadline.map { deadline in
            Task { [weak self] in
                try await Task.sleep(until: deadline, clock: .continuous)
                self?.withdraw(ticket, with: WaitExpired())
            }
        }
        defer { expiry?.cancel() }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let resumeNow: Result<Void, any Error>? = locked.withLockedValue { locked in
                    guard var waiter = locked.waiters[ticket] else { return .success(()) }  // already started
                    if let reason = waiter.withdrawn {
                        locked.waiters[ticket] = nil
                        return .failure(reason)
                    }
                    waiter.continuation = continuation
                    locked.waiters[ticket] = waiter
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            withdraw(ticket, with: CancellationError())
        }
    }

    /// Takes `ticket` out of the queue, if it still waits, and fails its wait with `reason`.
    private func withdraw(_ ticket: UInt64, with reason: any Error & Sendable) {
        let (continuation, activity): (UnsafeContinuation<Void, any Error>?, (Activity, [AsyncStream<Activity>.Continuation])?) = locked.withLockedValue { locked in
            guard locked.state.cancel(id: ticket), var waiter = locked.waiters[ticket] else { return (nil, nil) }
            locked.forget(ticket: ticket)
            if let continuation = waiter.continuation {
                locked.waiters[ticket] = nil
                return (continuation, locked.change)
            }
            waiter.withdrawn = reason
            locked.waiters[ticket] = waiter
            return (nil, locked.change)
        }
        continuation?.resume(throwing: reason)
        if let activity { publish(activity) }
    }

    /// Gives back the slot taken by ``acquire(host:priority:request:)``; `sample`, how the
    /// exchange went, feeds the host's adaptive limit.
    func release(host: String, sample: AdaptiveLimit.Sample) {
        let (started, activity) = locked.withLockedValue { locked in
            let tickets = locked.state.finish(host: host, sample: sample)
            // Most releases start one waiting request or none: no array for those.
            var started = FirstAndRest<UnsafeContinuation<Void, any Error>>()
            for ticket in tickets {
                let waiter = locked.waiters.removeValue(forKey: ticket)
                if let continuation = waiter?.continuation { started.append(continuation) }
                locked.forget(ticket: ticket)
            }
            return (started, locked.change)
        }
        for continuation in started { continuation.resume() }
        publish(activity)
    }

    /// Changes the priority of a request while it waits; no effect once it runs.
    func changePriority(of request: CourierRequestID, to priority: RequestPriority) {
        locked.withLockedValue { locked in
            guard let ticket = locked.ticketsByRequest[request] else { return }
            locked.state.changePriority(id: ticket, to: priority)
        }
    }

    /// Requests waiting and in flight now.
    var activity: Activity { locked.withLockedValue { $0.activity } }

    /// Every change of ``activity``, starting with the current value.
    func activityUpdates() -> AsyncStream<Activity> {
        let (stream, continuation) = AsyncStream<Activity>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = locked.withLockedValue { locked in
            locked.nextObserver += 1
            locked.observers[locked.nextObserver] = continuation
            continuation.yield(locked.activity)
            return locked.nextObserver
        }
        continuation.onTermination = { [weak self] _ in
            self?.locked.withLockedValue { _ = $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    private func publish(_ change: (activity: Activity, observers: [AsyncStream<Activity>.Continuation])) {
        for observer in change.observers { observer.yield(change.activity) }
    }
}

/// How many requests wait for a slot and how many are in flight (MKNetworkKit's network
/// activity indicator).
public struct Activity: Sendable, Hashable {
    /// Requests waiting for a slot.
    public var waiting: Int
    /// Requests in flight.
    public var inFlight: Int
    /// Whether any request waits or runs.
    public var isActive: Bool { waiting + inFlight > 0 }

    /// Creates a value, for comparisons in tests.
    public init(waiting: Int, inFlight: Int) {
        self.waiting = waiting
        self.inFlight = inFlight
    }
}
