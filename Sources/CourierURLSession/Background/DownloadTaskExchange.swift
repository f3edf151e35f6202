import Courier
import Foundation
import NIOConcurrencyHelpers

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One download task's life, as the background session reports it: waiting → the body kept in
/// the ledger (``finished(_:)``) → the task completed (``completed(_:cancelledAfterChallenge:)``), or failed at any
/// point (a deadline, a cancellation, the session's own error). The waiter is resumed once,
/// when the task completes or the exchange fails; every event after that is ignored.
final class DownloadTaskExchange: Sendable {
    private struct State {
        var entry: TransferLedger.Entry?
        var outcome: Result<TransferLedger.Entry, CourierError>?
        var waiter: CheckedContinuation<TransferLedger.Entry, any Error>?
        var task: URLSessionDownloadTask?
        var wasChallenged = false
    }

    let url: URL
    /// Told of the body bytes the task has written so far, and of the length when known.
    let reportReceived: (@Sendable (_ received: Int64, _ expected: Int64?) -> Void)?
    private let state = NIOLockedValueBox(State())

    init(url: URL, reportReceived: (@Sendable (Int64, Int64?) -> Void)? = nil) {
        self.url = url
        self.reportReceived = reportReceived
    }

    /// Keeps `task`; returns `false` when the exchange has already ended, in which case the
    /// task must not be started.
    func attach(_ task: URLSessionDownloadTask) -> Bool {
        state.withLockedValue { state in
            state.task = task
            return state.outcome == nil
        }
    }

    /// The session's task, once made.
    var task: URLSessionDownloadTask? { state.withLockedValue { $0.task } }

    /// Whether the exchange has an outcome, so that its task has nothing left to do.
    var isDone: Bool { state.withLockedValue { $0.outcome != nil } }

    /// The ledger now holds the body (`nil`: it could not be kept).
    func finished(_ entry: TransferLedger.Entry?) {
        state.withLockedValue { $0.entry = entry }
    }

    /// The session asked for credentials; the challenge is refused.
    func challenged() {
        state.withLockedValue { $0.wasChallenged = true }
    }

    /// Whether the session asked for credentials before it kept any body: refusing the
    /// challenge ended the task with the response's head alone.
    var endsWithRefusedChallenge: Bool {
        state.withLockedValue { $0.wasChallenged && $0.entry == nil && $0.outcome == nil }
    }

    /// The session completed the task, with `error` when it failed. A refused challenge whose
    /// response was kept counts as that response.
    func completed(_ error: CourierError?, cancelledAfterChallenge: Bool) {
        let outcome: Result<TransferLedger.Entry, CourierError> = state.withLockedValue { state in
            if let entry = state.entry, error == nil || (cancelledAfterChallenge && state.wasChallenged) { return .success(entry) }
            return .failure(
                error ?? CourierError(.connectionFailed, "The download's body could not be kept in the background transfers folder; check that the disk has room.", url: url)
            )
        }
        settle(outcome)
    }

    /// Ends the exchange with `error` unless it has already ended; returns whether it did.
    @discardableResult
    func fail(_ error: CourierError) -> Bool {
        settle(.failure(error))
    }

    /// The kept body and head, once the task has completed.
    func wait() async throws -> TransferLedger.Entry {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<TransferLedger.Entry, CourierError>? = state.withLockedValue { state in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
        }
    }

    @discardableResult
    private func settle(_ outcome: Result<TransferLedger.Entry, CourierError>) -> Bool {
        let (settled, waiter) = state.withLockedValue { state -> (Bool, CheckedContinuation<TransferLedger.Entry, any Error>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(with: outcome.mapError { $0 as any Error })
        return settled
    }
}
