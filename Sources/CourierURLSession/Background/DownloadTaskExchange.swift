import Courier
import Foundation
import NIOConcurrencyHelpers

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One download's life, as the background session reports it: waiting → the body kept in the
/// ledger (``finished(_:)``) → the task completed (``completed(_:cancelledAfterChallenge:)``),
/// or failed at any point (a deadline, a cancellation, the session's own error). The waiter is
/// resumed once, when the task completes or the exchange fails; every event after that is
/// ignored.
///
/// On Apple platforms the task is a download task, whose body the system writes to a file of its
/// own. FoundationNetworking writes a download task's body to a file in the shared temporary
/// folder, readable by other users, and leaves it there when the task fails or is cancelled; so
/// there the task is a data task, and the exchange writes each piece of the body to the ledger's
/// part file itself (``append(_:)``).
final class DownloadTaskExchange: Sendable {
    private struct State {
        var entry: TransferLedger.Entry?
        var outcome: Result<TransferLedger.Entry, CourierError>?
        var waiter: CheckedContinuation<TransferLedger.Entry, any Error>?
        var task: URLSessionTask?
        var wasChallenged = false
        var response: HTTPURLResponse?
        var part = PartWriter()
    }

    let url: URL
    /// Where a data task's body is written as it arrives.
    let partFile: URL
    /// Told of the body bytes the task has written so far, and of the length when known.
    let reportReceived: (@Sendable (_ received: Int64, _ expected: Int64?) -> Void)?
    private let state = NIOLockedValueBox(State())

    init(url: URL, partFile: URL, reportReceived: (@Sendable (Int64, Int64?) -> Void)? = nil) {
        self.url = url
        self.partFile = partFile
        self.reportReceived = reportReceived
    }

    /// Keeps `task`; returns `false` when the exchange has already ended, in which case the
    /// task must not be started.
    func attach(_ task: URLSessionTask) -> Bool {
        state.withLockedValue { state in
            state.task = task
            return state.outcome == nil
        }
    }

    /// The session's task, once made.
    var task: URLSessionTask? { state.withLockedValue { $0.task } }

    /// Whether the exchange has an outcome, so that its task has nothing left to do.
    var isDone: Bool { state.withLockedValue { $0.outcome != nil } }

    /// The data task's response head arrived.
    func received(_ response: HTTPURLResponse?) {
        state.withLockedValue { $0.response = response }
    }

    /// Writes `data`, the next piece of the data task's body, to ``partFile``, and reports the
    /// bytes of a success's body so far; returns `false` when the exchange has ended or the piece
    /// cannot be written, in which case the task has nothing left to do.
    func append(_ data: Data) -> Bool {
        let written: (bytes: Int64, response: HTTPURLResponse?)? = state.withLockedValue { state in
            guard state.outcome == nil, state.part.append(data, to: partFile) else { return nil }
            return (state.part.bytes, state.response)
        }
        guard let written else { return false }
        // Only the body of a success is the download's: a redirect's or a challenge's is not.
        if let report = reportReceived, let response = written.response, (200..<300).contains(response.statusCode) {
            report(written.bytes, response.expectedContentLength >= 0 ? response.expectedContentLength : nil)
        }
        return true
    }

    /// Closes the part file once the data task has completed: `file` is ``partFile`` when it
    /// holds the body, `nil` when no body arrived; `isDropped` when a piece could not be written.
    func closePart() -> (file: URL?, isDropped: Bool) {
        state.withLockedValue { state in
            state.part.close()
            return (state.part.hasFile && !state.part.isDropped ? partFile : nil, state.part.isDropped)
        }
    }

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
    /// response was kept counts as that response. Returns whether the waiter was handed the kept
    /// result: when not, nobody will read it.
    @discardableResult
    func completed(_ error: CourierError?, cancelledAfterChallenge: Bool) -> Bool {
        let outcome: Result<TransferLedger.Entry, CourierError> = state.withLockedValue { state in
            if let entry = state.entry, error == nil || (cancelledAfterChallenge && state.wasChallenged) { return .success(entry) }
            return .failure(
                error ?? CourierError(.connectionFailed, "The download's body could not be kept in the background transfers folder; check that the disk has room.", url: url)
            )
        }
        guard settle(outcome), case .success = outcome else { return false }
        return true
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
            if case .failure = outcome, state.part.hasFile {
                // Nobody will read the body: what arrived of it is deleted now, not when the
                // session gets round to completing the cancelled task. No piece is written after.
                state.part.close()
                try? FileManager.default.removeItem(at: partFile)
            }
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(with: outcome.mapError { $0 as any Error })
        return settled
    }
}
