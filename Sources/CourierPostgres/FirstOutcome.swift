import NIOConcurrencyHelpers

/// The first of several outcomes given to it, handed to the one task that waits for it.
package final class FirstOutcome<Value: Sendable>: Sendable {
    private struct State {
        var outcome: Result<Value, any Error>?
        var waiter: CheckedContinuation<Result<Value, any Error>, Never>?
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Keeps `outcome` unless one was given already, and wakes the waiter.
    package func settle(with outcome: Result<Value, any Error>) {
        let waiter: CheckedContinuation<Result<Value, any Error>, Never>? = state.withLockedValue { state in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// The first outcome, once there is one.
    package var value: Result<Value, any Error> {
        get async {
            await withCheckedContinuation { continuation in
                let ready: Result<Value, any Error>? = state.withLockedValue { state in
                    if let outcome = state.outcome { return outcome }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

/// A statement that took longer than it may.
package struct StatementTimeout: Error, CustomStringConvertible {
    package let deadline: Duration
    package var description: String { "no answer within \(deadline)" }
}
