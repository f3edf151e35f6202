/// One exchange's claim on a ``Scheduler`` slot, from its arrival until the slot is given back.
///
/// ```
/// waiting ──(a slot frees)──▶ granted ──end──▶ ended
///    │                                          ▲
///    └──(cancelled, or the wait's deadline)──▶ withdrawn ──end──┘
/// ```
///
/// The exchange hands the admission its start (``Scheduler/start(_:body:)``) as soon as it is
/// ready to go, whether or not a slot is free. A granted admission starts at once; a waiting
/// one keeps the start, and the release that frees its slot runs it, on the thread that
/// released: so a request that waits is started where the exchange before it ended (on the
/// event loop, for AsyncHTTPClient's collected responses), without waking its own task first.
/// A withdrawal hands the start its reason instead. Roads that cannot hand a start over wait
/// with ``Scheduler/wait(for:)``, which is the same start resuming a continuation.
///
/// The slot is given back exactly once, by ``Scheduler/end(_:outcome:)`` or
/// ``Scheduler/release(_:outcome:)``, whichever comes first: the transport, on the event loop,
/// once a collected response is complete, or the hop loop once the hop has ended. Later calls
/// change nothing.
///
/// A value: where it stands is kept by the scheduler, under its lock, by ``ticket``.
struct Admission: Sendable {
    /// What starts the exchange, given `nil`; or fails it, given why it may not start.
    typealias Start = @Sendable (_ refusal: (any Error)?) -> Void

    /// The scheduler whose slot it is.
    let scheduler: Scheduler
    /// The origin whose slot it is.
    let host: String
    /// The admission's place in the scheduler's state.
    let ticket: UInt64
    /// Whether it had to wait when it arrived: only then can a deadline or a cancellation
    /// withdraw it.
    let arrivedWaiting: Bool

    /// Hands over the start of the exchange: see ``Scheduler/start(_:body:)``.
    func start(_ body: @escaping Start) {
        scheduler.start(self, body: body)
    }

    /// Waits for the slot: see ``Scheduler/wait(for:)``.
    nonisolated(nonsending) func wait() async throws {
        try await scheduler.wait(for: self)
    }

    /// Leaves the line, if still in it, failing the start with `reason`.
    func withdraw(with reason: any Error & Sendable) {
        scheduler.withdraw(self, with: reason)
    }

    /// Gives the slot back: see ``Scheduler/end(_:outcome:)``.
    func end(_ outcome: AdaptiveLimit.Outcome) {
        scheduler.end(self, outcome: outcome)
    }

    /// The wait for a slot was withdrawn with ``reason``: the transport that was handed the
    /// start throws the reason as it is, not as a failure of its own.
    struct Refused: Error {
        let reason: any Error
    }
}
