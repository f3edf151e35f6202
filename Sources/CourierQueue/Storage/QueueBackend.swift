import Courier
import Foundation

/// Where a ``DurableQueue`` keeps its records: the SQLite file (``SQLiteQueueStore``) or a
/// PostgreSQL database (the CourierQueuePostgres product).
///
/// Every change is one atomic statement, committed before the call returns, so that a worker
/// that dies between two of them leaves every record in a state another worker resumes from.
/// Several workers, in one process or in many, may deliver one store: a worker claims a
/// record with a lease (``QueueLease``) and only the lease's holder settles it.
package protocol QueueBackend: Sendable {
    /// Where the records are, for messages: a path, or a URL without its password.
    var location: String { get }
    /// What opening found open to other users, as sentences.
    var warnings: [String] { get }

    /// Writes a new pending record with `id`, due at once, unless `maximumRecords` records are
    /// already waiting or in flight (``CourierError/Kind/queueFull``).
    func insert(_ request: QueuedRequest, id: String, now: Date, expiresAt: Date?, maximumRecords: Int) async throws(CourierError) -> QueueRecord
    /// What the planner needs of the records waiting or in flight, oldest first.
    func activeSlots() async throws(CourierError) -> [QueuePlanner.Slot]
    /// Every record, oldest first.
    func allRecords() async throws(CourierError) -> [QueueRecord]
    /// The record with `id`, if there is one.
    func record(id: String) async throws(CourierError) -> QueueRecord?

    /// How many records wait or are in flight.
    func activeCount() async throws(CourierError) -> Int

    /// Claims for `lease`'s holder, in queue order, at most `limit` records that can be sent
    /// now, and counts an attempt for each: pending records that are due, and records in
    /// flight whose lease has ended, whose holder is in `goneHolders`, or whose holder is
    /// `lease`'s own but that are not in `sending` (their result could not be recorded).
    /// Passes over records whose maximum age has passed (they are for
    /// ``expire(id:now:goneHolders:)``) and records for `skippingOrigins`. An ordered record
    /// is claimed only while no earlier ordered record for its origin waits or is in flight.
    /// Records another worker is claiming at the same moment are skipped, not waited for.
    func claim(
        limit: Int, lease: QueueLease, now: Date, goneHolders: [String], sending: [String], skippingOrigins: [String]
    ) async throws(CourierError) -> [QueueRecord]
    /// Moves the leases `holder` has on `ids` on to `expiresAt`.
    func renew(_ ids: [String], holder: String, expiresAt: Date) async throws(CourierError)
    /// Ends `holder`'s lease on `record` (as its claim returned it), leaving it in `state`
    /// with `outcome` (when given), due at `nextAttemptAt` when it is pending; `countsAttempt:
    /// false` takes back the attempt its claim counted. Returns the record as it is now, without
    /// reading its request again; `nil` when `holder` no longer holds the record: its lease ended
    /// and another worker claimed it.
    func settle(
        _ record: QueueRecord, holder: String, state: QueueRecord.State, outcome: QueueOutcome?, nextAttemptAt: Date?, countsAttempt: Bool
    ) async throws(CourierError) -> QueueRecord?
    /// Marks the record `id` expired when its maximum age has passed at `now` and it is
    /// pending, or in flight under a lease that ended or a holder in `goneHolders`.
    func expire(id: String, now: Date, goneHolders: [String]) async throws(CourierError) -> QueueRecord?

    /// Makes pending records due at `now`: all of them, or those for `origin`.
    func makeDue(origin: String?, now: Date) async throws(CourierError)
    /// Makes the pending records that last waited for credentials
    /// (``QueueOutcome/missingCredentials``) due at `now`.
    func makeDueWaitingForCredentials(now: Date) async throws(CourierError)
    /// Makes a record that is not in flight pending again, due at `now`, with a new expiry.
    func retry(id: String, now: Date, expiresAt: Date?) async throws(CourierError) -> QueueRecord
    /// Deletes a record that is not in flight.
    func delete(id: String) async throws(CourierError) -> QueueRecord

    /// Yields when another worker may have changed the records (enqueued, settled, released),
    /// so that this one plans again; finishes when the store is closed.
    func changes() -> AsyncStream<Void>
    /// Closes the store once the statements already running have finished.
    func close() async
}

extension QueueBackend {
    /// The error for a record that `retry` or `delete` could not change: in flight, or unknown.
    package func unchangeable(_ id: String) async throws(CourierError) -> CourierError {
        if try await record(id: id) != nil {
            return CourierError(.invalidState, "The record \(id) is being sent now; try again once its attempt has ended.")
        }
        return CourierError(.queueRecordNotFound, "No record in the queue at \(location) has the id \(id); list them with `courier queue list`.")
    }

    /// The error for a queue already holding `maximumRecords` records.
    package func full(_ maximumRecords: Int, url: URL) -> CourierError {
        CourierError(
            .queueFull,
            "The queue at \(location) already holds \(maximumRecords) records waiting for delivery; wait for them to be delivered, drop some, or raise QueueConfiguration.maximumRecords.",
            url: url
        )
    }
}

extension QueueRecord {
    /// The record once a settle left it in `state` with `attempts` and `nextAttemptAt`, the
    /// storage's values: its outcome replaced when one is given, and no lease.
    package func settled(_ state: State, outcome: QueueOutcome?, attempts: Int, nextAttemptAt: Date) -> QueueRecord {
        var record = self
        record.state = state
        record.outcome = outcome ?? self.outcome
        record.attempts = attempts
        record.nextAttemptAt = nextAttemptAt
        record.lease = nil
        return record
    }
}
