import NIOConcurrencyHelpers

/// Holds requests back until a global and a per-host slot are free, starting them in
/// priority order. Every request the client sends takes a slot for each exchange (each
/// redirect hop, each retry attempt) and gives it back when the exchange ends; see
/// ``Admission`` for one exchange's claim, and how a waiting exchange is started.
///
/// One lock guards the line, the counts and where every admission stands.
final class Scheduler: Sendable {
    /// An activity change and who to tell of it.
    private typealias Change = (activity: Activity, observers: [AsyncStream<Activity>.Continuation])

    /// What a waiting admission holds: the exchange's start once it is handed over, or why the
    /// admission was withdrawn, until the start comes for it.
    private struct Waiter {
        var start: Admission.Start?
        var withdrawn: (any Error & Sendable)?
    }

    private struct Locked {
        var state: SchedulerState
        /// The admissions in line, by ticket.
        var waiting: [UInt64: Waiter] = [:]
        /// The admissions holding a slot.
        var granted: Set<UInt64> = []
        /// When each slot was granted, kept only for an adaptive limit's samples.
        var grantedSince: [UInt64: ClockReading] = [:]
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
        var change: Change {
            (activity, observers.isEmpty ? [] : Array(observers.values))
        }

        /// `ticket` holds a slot from `now` on.
        mutating func grant(_ ticket: UInt64, now: ClockReading?) {
            granted.insert(ticket)
            if let now { grantedSince[ticket] = now }
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

    /// A request for `host` arrives: its admission holds a slot at once when one is free, else
    /// it waits in line, by `priority`, for ``end(_:outcome:)`` to free one.
    func admit(host: String, priority: RequestPriority, request: CourierRequestID) -> Admission {
        let (ticket, startsNow, change) = locked.withLockedValue { locked in
            locked.nextTicket += 1
            let ticket = locked.nextTicket
            let startsNow = locked.state.arrive(id: ticket, host: host, priority: priority)
            if startsNow {
                locked.grant(ticket, now: Self.now(if: locked.state.adapts))
            } else {
                locked.waiting[ticket] = Waiter()
                locked.ticketsByRequest[request] = ticket
                locked.requestsByTicket[ticket] = request
            }
            return (ticket, startsNow, locked.change)
        }
        publish(change)
        return Admission(scheduler: self, host: host, ticket: ticket, arrivedWaiting: !startsNow)
    }

    /// Hands `admission` the start of its exchange: run at once when it holds a slot, kept
    /// while it waits and run by the release that frees its slot, handed the reason when it
    /// was withdrawn. Hand it over once.
    func start(_ admission: Admission, body: @escaping Admission.Start) {
        let ticket = admission.ticket
        let refusal: (any Error)?? = locked.withLockedValue { locked in
            guard var waiter = locked.waiting[ticket] else {
                // Granted, or else given back already: the exchange may not start without a slot.
                return locked.granted.contains(ticket) ? .some(nil) : .some(CancellationError())
            }
            if let reason = waiter.withdrawn {
                locked.waiting[ticket] = nil
                return .some(reason)
            }
            waiter.start = body
            locked.waiting[ticket] = waiter
            return .none
        }
        if let refusal { body(refusal) }
    }

    /// Waits until `admission` holds its slot; throws `CancellationError` when the task is
    /// cancelled first, and the reason of any other withdrawal (``expire(_:at:reason:)``).
    nonisolated(nonsending) func wait(for admission: Admission) async throws {
        guard admission.arrivedWaiting else { return }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                start(admission) { refusal in
                    if let refusal { continuation.resume(throwing: refusal) } else { continuation.resume() }
                }
            }
        } onCancel: {
            withdraw(admission, with: CancellationError())
        }
    }

    /// Withdraws `admission` with the error `reason` makes if it still waits at `deadline`.
    /// Cancel the task once the wait no longer matters.
    func expire(
        _ admission: Admission, at deadline: ContinuousClock.Instant, reason: @escaping @Sendable () -> any Error & Sendable
    ) -> Task<Void, Never> {
        Task { [weak self] in
            guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
            self?.withdraw(admission, with: reason())
        }
    }

    /// Takes `admission` out of line, if it still waits, and fails its start with `reason`.
    func withdraw(_ admission: Admission, with reason: any Error & Sendable) {
        let ticket = admission.ticket
        let (start, change): (Admission.Start?, Change?) = locked.withLockedValue { locked in
            guard var waiter = locked.waiting[ticket], waiter.withdrawn == nil, locked.state.cancel(id: ticket) else { return (nil, nil) }
            locked.forget(ticket: ticket)
            if let start = waiter.start {
                locked.waiting[ticket] = nil
                return (start, locked.change)
            }
            // Kept for the start, when it comes.
            waiter.withdrawn = reason
            locked.waiting[ticket] = waiter
            return (nil, locked.change)
        }
        start?(reason)
        if let change { publish(change) }
    }

    /// ``release(_:outcome:)``, then the starts it returns, here.
    func end(_ admission: Admission, outcome: AdaptiveLimit.Outcome) {
        for start in release(admission, outcome: outcome) { start(nil) }
    }

    /// Gives back `admission`'s slot, with how its exchange went (`outcome`, and the time since
    /// the slot was granted) for the host's adaptive limit; an admission still in line leaves
    /// it. Only the first call counts. Returns the starts of the admissions granted the freed
    /// slots, for the caller to run.
    func release(_ admission: Admission, outcome: AdaptiveLimit.Outcome) -> FirstAndRest<Admission.Start> {
        let ticket = admission.ticket
        let (started, change): (FirstAndRest<Admission.Start>, Change?) = locked.withLockedValue { locked in
            guard locked.granted.remove(ticket) != nil else {
                guard let waiter = locked.waiting.removeValue(forKey: ticket) else { return ([], nil) }
                // Still in line (its exchange failed before starting), or withdrawn already.
                guard waiter.withdrawn == nil else { return ([], nil) }
                _ = locked.state.cancel(id: ticket)
                locked.forget(ticket: ticket)
                return ([], locked.change)
            }
            let sample = locked.grantedSince.removeValue(forKey: ticket).map { AdaptiveLimit.Sample(latency: ClockReading.now - $0, outcome: outcome) }
            let tickets = locked.state.finish(host: admission.host, sample: sample)
            // Most releases start one waiting request or none: no array for those.
            var started = FirstAndRest<Admission.Start>()
            let now = Self.now(if: !tickets.isEmpty && locked.state.adapts)
            for next in tickets {
                let waiter = locked.waiting.removeValue(forKey: next)
                locked.forget(ticket: next)
                locked.grant(next, now: now)
                if let start = waiter?.start { started.append(start) }
            }
            return (started, locked.change)
        }
        if let change { publish(change) }
        return started
    }

    /// The time now, when `needed`: an adaptive limit's samples need it, fixed limits do not.
    private static func now(if needed: Bool) -> ClockReading? {
        needed ? .now : nil
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

    private func publish(_ change: Change) {
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
