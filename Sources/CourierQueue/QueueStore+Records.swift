import Courier
import Foundation
import SQLiteNIO

/// The changes the queue makes to its records; each is one statement, so that a process that
/// dies between two of them leaves every record in a state it can resume from.
extension QueueStore {
    /// Writes a new pending record with `id`, due at once, unless `maximumRecords` records are
    /// already waiting or in flight.
    func insert(_ request: QueuedRequest, id: String, now: Date, expiresAt: Date?, maximumRecords: Int) async throws(CourierError) -> QueueRecord {
        let sql = """
            INSERT INTO courier_queue (id, origin, is_ordered, state, attempts, created_at, next_attempt_at, expires_at, tag, request)
            SELECT ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?
            WHERE (SELECT count(*) FROM courier_queue WHERE state IN ('pending', 'in-flight')) < ?
            RETURNING *
            """
        let binds: [SQLiteData] = [
            .text(id), .text(request.origin), .integer(request.isOrdered ? 1 : 0),
            .float(now.timeIntervalSince1970), .float(now.timeIntervalSince1970), expiresAt.map { .float($0.timeIntervalSince1970) } ?? .null,
            request.tag.map { .text($0) } ?? .null, try encode(request), .integer(maximumRecords),
        ]
        guard let record = try await records(sql, binds, action: "written").first else {
            throw CourierError(
                .queueFull,
                "The queue at \(path) already holds \(maximumRecords) records waiting for delivery; wait for them to be delivered, drop some, or raise QueueConfiguration.maximumRecords.",
                url: request.url
            )
        }
        return record
    }

    /// What the planner needs of the records waiting or in flight, oldest first; requests and
    /// bodies stay on disk.
    func activeSlots() async throws(CourierError) -> [QueuePlanner.Slot] {
        let sql = """
            SELECT id, origin, is_ordered, state, next_attempt_at, expires_at FROM courier_queue
            WHERE state IN ('pending', 'in-flight') ORDER BY sequence
            """
        var slots: [QueuePlanner.Slot] = []
        for row in try await run(sql, action: "read") {
            guard let id = row.column("id")?.string, let origin = row.column("origin")?.string,
                let ordered = QueueStore.wholeNumber(row.column("is_ordered")),
                let state = row.column("state")?.string.flatMap(QueueRecord.State.init(rawValue:)),
                let next = row.column("next_attempt_at")?.double
            else {
                throw CourierError(.queueStorage, "A record in the queue database at \(path) has a missing or malformed column; move the file aside to start an empty queue.")
            }
            slots.append(
                QueuePlanner.Slot(
                    id: id, origin: origin, isOrdered: ordered != 0, state: state, nextAttemptAt: Date(timeIntervalSince1970: next),
                    expiresAt: row.column("expires_at")?.double.map(Date.init(timeIntervalSince1970:))
                )
            )
        }
        return slots
    }

    /// Every record, oldest first.
    func allRecords() async throws(CourierError) -> [QueueRecord] {
        try await records("SELECT * FROM courier_queue ORDER BY sequence", action: "read")
    }

    /// The record with `id`, if there is one.
    func record(id: String) async throws(CourierError) -> QueueRecord? {
        try await records("SELECT * FROM courier_queue WHERE id = ?", [.text(id)], action: "read").first
    }

    /// Marks a pending record in flight and counts the attempt; `nil` when it is no longer pending.
    func claim(id: String) async throws(CourierError) -> QueueRecord? {
        let sql = "UPDATE courier_queue SET state = 'in-flight', attempts = attempts + 1 WHERE id = ? AND state = 'pending' RETURNING *"
        return try await records(sql, [.text(id)], action: "updated").first
    }

    /// Moves a record to `state` with `outcome`, due at `nextAttemptAt` when it is pending.
    func update(id: String, state: QueueRecord.State, outcome: QueueOutcome?, nextAttemptAt: Date? = nil) async throws(CourierError) -> QueueRecord? {
        let sql = """
            UPDATE courier_queue SET state = ?, outcome = coalesce(?, outcome), next_attempt_at = coalesce(?, next_attempt_at)
            WHERE id = ? RETURNING *
            """
        let encoded: SQLiteData = if let outcome { try encode(outcome) } else { .null }
        let binds: [SQLiteData] = [
            .text(state.rawValue), encoded,
            nextAttemptAt.map { .float($0.timeIntervalSince1970) } ?? .null, .text(id),
        ]
        return try await records(sql, binds, action: "updated").first
    }

    /// Makes pending records due at `now`: all of them, or those for `origin`.
    func makeDue(origin: String?, now: Date) async throws(CourierError) {
        var sql = "UPDATE courier_queue SET next_attempt_at = ? WHERE state = 'pending' AND next_attempt_at > ?"
        var binds: [SQLiteData] = [.float(now.timeIntervalSince1970), .float(now.timeIntervalSince1970)]
        if let origin {
            sql += " AND origin = ?"
            binds.append(.text(origin))
        }
        _ = try await run(sql, binds, action: "updated")
    }

    /// Makes the pending records that last waited for credentials
    /// (``QueueOutcome/missingCredentials``) due at `now`, so that a queue opened with other
    /// credentials tries them at once.
    func makeDueWaitingForCredentials(now: Date) async throws(CourierError) {
        let sql = """
            UPDATE courier_queue SET next_attempt_at = ?
            WHERE state = 'pending' AND next_attempt_at > ? AND outcome IS NOT NULL
            AND json_extract(CAST(outcome AS TEXT), '$.missingCredentials') IS NOT NULL
            """
        _ = try await run(sql, [.float(now.timeIntervalSince1970), .float(now.timeIntervalSince1970)], action: "updated")
    }

    /// Makes records left in flight by a process that ended pending again, due at once; they
    /// keep their key and attempts.
    func resumeInFlight() async throws(CourierError) {
        _ = try await run("UPDATE courier_queue SET state = 'pending' WHERE state = 'in-flight'", action: "updated")
    }

    /// Makes a record pending again, due at `now`, with a new expiry.
    func retry(id: String, now: Date, expiresAt: Date?) async throws(CourierError) -> QueueRecord {
        let sql = """
            UPDATE courier_queue SET state = 'pending', next_attempt_at = ?, expires_at = ?
            WHERE id = ? AND state != 'in-flight' RETURNING *
            """
        let binds: [SQLiteData] = [.float(now.timeIntervalSince1970), expiresAt.map { .float($0.timeIntervalSince1970) } ?? .null, .text(id)]
        guard let record = try await records(sql, binds, action: "updated").first else { throw try await missing(id) }
        return record
    }

    /// Deletes a record that is not in flight.
    func delete(id: String) async throws(CourierError) -> QueueRecord {
        let sql = "DELETE FROM courier_queue WHERE id = ? AND state != 'in-flight' RETURNING *"
        guard let record = try await records(sql, [.text(id)], action: "updated").first else { throw try await missing(id) }
        return record
    }

    /// The error for a record that could not be changed.
    private func missing(_ id: String) async throws(CourierError) -> CourierError {
        if try await record(id: id) != nil {
            return CourierError(.invalidState, "The record \(id) is being sent now; try again once its attempt has ended.")
        }
        return CourierError(.queueRecordNotFound, "No record in the queue at \(path) has the id \(id); list them with `courier queue list`.")
    }
}
