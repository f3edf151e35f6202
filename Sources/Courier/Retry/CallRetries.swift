import Foundation
import NIOConcurrencyHelpers

/// The retry decisions of one call: the ``RetryStateMachine`` that the attempt loop and a
/// streamed request's sink share, and the call's deadline.
///
/// The loop asks after every attempt (``decide(_:now:)``). A streamed request asks earlier,
/// when a response's head arrives (``retriesBeforeReading(status:retryAfter:now:)``): a status
/// that will be retried is never handed to the reader, so `send`, `stream` and `download` retry
/// the same responses. The decision made for a head is the one the loop then acts on.
final class CallRetries: Sendable {
    private struct State {
        var machine: RetryStateMachine
        /// The decision already made for the current attempt's response head.
        var decided: RetryStateMachine.Decision?
    }

    private let state: NIOLockedValueBox<State>
    /// Whether the request may be sent twice (idempotent method, or an `Idempotency-Key`).
    let repeatable: Bool
    /// When the whole call must have ended; `nil` for no limit.
    let deadline: ContinuousClock.Instant?

    init(policy: CourierRetryPolicy, repeatable: Bool, deadline: ContinuousClock.Instant?) {
        self.state = NIOLockedValueBox(State(machine: RetryStateMachine(policy: policy)))
        self.repeatable = repeatable
        self.deadline = deadline
    }

    /// Attempts made so far.
    var attempts: Int { state.withLockedValue { $0.machine.attempts } }

    /// Decides on a response head before its body is read: `true` when the response will be
    /// retried, so that its body is discarded rather than handed to the reader.
    func retriesBeforeReading(status: Int, retryAfter: String?, now: Date = Date()) -> Bool {
        let decision = decideNow(.response(status: status, retryAfter: retryAfter), now: now)
        state.withLockedValue { $0.decided = decision }
        if case .retry = decision { return true }
        return false
    }

    /// The decision for an attempt's outcome: the one already made for its head, if any.
    func decide(_ outcome: RetryStateMachine.Outcome, now: Date = Date()) -> RetryStateMachine.Decision {
        if let decided = state.withLockedValue({ state -> RetryStateMachine.Decision? in
            defer { state.decided = nil }
            return state.decided
        }) {
            if case .response = outcome { return decided }
        }
        return decideNow(outcome, now: now)
    }

    /// Asks the machine; a wait that would end past the deadline is no retry.
    private func decideNow(_ outcome: RetryStateMachine.Outcome, now: Date) -> RetryStateMachine.Decision {
        state.withLockedValue { state in
            var trial = state.machine
            let decision = trial.decide(outcome, repeatable: repeatable, jitter: Double.random(in: 0..<1), now: now)
            if case .retry(let delay) = decision, let deadline, ContinuousClock.now + delay >= deadline {
                return .stop
            }
            state.machine = trial
            return decision
        }
    }
}
