import Courier
import Foundation
import SQLiteNIO

/// The changes the queue makes to its records; each is one statement, so that a process that
/// dies between two of them leaves every record in a state it can resume from.
extension SQLiteQueueStore {
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
        guard let record = try await records(sql, binds, action: "written").first else { throw full(maximumRecords, url: request.url) }
        return record
    }

    /// Requests and bodies stay on disk.
    func activeSlots() async throws(CourierError) -> [QueuePlanner.Slot] {
        let sql = """
            SELECT id, origin, is_ordered, state, created_at, next_attempt_at, expires_at, lease_holder, lease_expires_at FROM courier_queue
            WHERE state IN ('pending', 'in-flight') ORDER BY sequence
            """
        var slots: [QueuePlanner.Slot] = []
        for row in try await run(sql, action: "read") {
            guard let id = row.column("id")?.string, let origin = row.column("origin")?.string,
                let ordered = SQLiteQueueStore.wholeNumber(row.column("is_ordered")),
                let state = row.column("state")?.string.flatMap(QueueRecord.State.init(rawValue:)),
                let created = row.column("created_at")?.double, let next = row.column("next_attempt_at")?.double
            else {
                throw CourierError(.queueStorage, "A record in the queue database at \(path) has a missing or malformed column; move the file aside to start an empty queue.")
            }
            slots.append(
                QueuePlanner.Slot(
                    id: id, origin: origin, isOrdered: ordered != 0, state: state, nextAttemptAt: Date(timeIntervalSince1970: next),
                    expiresAt: row.column("expires_at")?.double.map(Date.init(timeIntervalSince1970:)),
                    createdAt: Date(timeIntervalSince1970: created), lease: SQLiteQueueStore.lease(in: row)
                )
            )
        }
        return slots
    }

    func allRecords() async throws(CourierError) -> [QueueRecord] {
        try await records("SELECT * FROM courier_queue ORDER BY sequence", action: "read")
    }

    func record(id: String) async throws(CourierError) -> QueueRecord? {
        try await records("SELECT * FROM courier_queue WHERE id = ?", [.text(id)], action: "read").first
    }

    func activeCount() async throws(CourierError) -> Int {
        let rows = try await run("SELECT count(*) FROM courier_queue WHERE state IN ('pending', 'in-flight')", action: "read")
        return rows.first?.columns.first?.data.integer ?? 0
    }

    /// SQLite lets one writer in at a time, so the statement sees no claim half made.
    func claim(
        limit: Int, lease: QueueLease, now: Date, goneHolders: [String], sending: [String], skippingOrigins: [String]
    ) async throws(CourierError) -> [QueueRecord] {
        guard limit > 0 else { return [] }
        let sql = """
            UPDATE courier_queue SET state = 'in-flight', attempts = attempts + 1, lease_holder = ?, lease_expires_at = ?
            WHERE sequence IN (
                SELECT q.sequence FROM courier_queue AS q INDEXED BY courier_queue_due
                WHERE q.state IN ('pending', 'in-flight')
                AND ((q.state = 'pending' AND q.next_attempt_at <= ?) OR \(SQLiteQueueStore.reclaimable("q")))
                AND q.id NOT IN (SELECT value FROM json_each(?))
                AND (q.expires_at IS NULL OR q.expires_at > ?)
                AND q.origin NOT IN (SELECT value FROM json_each(?))
                AND (q.is_ordered = 0 OR q.sequence IN (\(SQLiteQueueStore.orderedHeads)))
                ORDER BY q.sequence LIMIT ?
            )
            RETURNING *
            """
        let moment = SQLiteData.float(now.timeIntervalSince1970)
        let binds: [SQLiteData] = [
            .text(lease.holder), .float(lease.expiresAt.timeIntervalSince1970), moment, moment, try json(goneHolders + [lease.holder]),
            try json(sending), moment, try json(skippingOrigins), .integer(limit),
        ]
        return try await records(sql, binds, action: "updated").sorted { $0.sequence < $1.sequence }
    }

    /// The sequence numbers of each origin's oldest ordered record waiting or in flight: the
    /// only ordered records that may leave. Computed once per statement, not once per row.
    static let orderedHeads = """
        SELECT min(e.sequence) FROM courier_queue AS e WHERE e.is_ordered = 1 AND e.state IN ('pending', 'in-flight') GROUP BY e.origin
        """

    /// Whether the record `table` is in flight under a lease that ended (or none, as a
    /// database from before leases has), or held by a gone worker; binds `now` and the gone
    /// holders.
    private static func reclaimable(_ table: String) -> String {
        """
        (\(table).state = 'in-flight' AND (\(table).lease_expires_at IS NULL OR \(table).lease_expires_at <= ?
            OR \(table).lease_holder IN (SELECT value FROM json_each(?))))
        """
    }

    func renew(_ ids: [String], holder: String, expiresAt: Date) async throws(CourierError) {
        guard !ids.isEmpty else { return }
        let sql = """
            UPDATE courier_queue SET lease_expires_at = ?
            WHERE state = 'in-flight' AND lease_holder = ? AND id IN (SELECT value FROM json_each(?))
            """
        _ = try await run(sql, [.float(expiresAt.timeIntervalSince1970), .text(holder), try json(ids)], action: "updated")
    }

    func settle(
        _ record: QueueRecord, holder: String, state: QueueRecord.State, outcome: QueueOutcome?, nextAttemptAt: Date?, countsAttempt: Bool
    ) async throws(CourierError) -> QueueRecord? {
        let sql = """
            UPDATE courier_queue SET state = ?, outcome = coalesce(?, outcome), next_attempt_at = coalesce(?, next_attempt_at),
            attempts = attempts - ?, lease_holder = NULL, lease_expires_at = NULL
            WHERE id = ? AND state = 'in-flight' AND lease_holder = ? RETURNING attempts, next_attempt_at
            """
        let encoded: SQLiteData = if let outcome { try encode(outcome) } else { .null }
        let binds: [SQLiteData] = [
            .text(state.rawValue), encoded, nextAttemptAt.map { .float($0.timeIntervalSince1970) } ?? .null,
            .integer(countsAttempt ? 0 : 1), .text(record.id), .text(holder),
        ]
        guard let row = try await run(sql, binds, action: "updated").first else { return nil }
        guard let attempts = SQLiteQueueStore.wholeNumber(row.column("attempts")), let next = row.column("next_attempt_at")?.double else {
            throw CourierError(.queueStorage, "The record \(record.id) in the queue database at \(path) has a missing or malformed column; move the file aside to start an empty queue.")
        }
        return record.settled(state, outcome: outcome, attempts: Int(attempts), nextAttemptAt: Date(timeIntervalSince1970: next))
    }

    func expire(id: String, now: Date, goneHolders: [String]) async throws(CourierError) -> QueueRecord? {
        let sql = """
            UPDATE courier_queue SET state = 'expired', lease_holder = NULL, lease_expires_at = NULL
            WHERE id = ? AND expires_at <= ? AND (state = 'pending' OR \(SQLiteQueueStore.reclaimable("courier_queue")))
            RETURNING *
            """
        let binds: [SQLiteData] = [.text(id), .float(now.timeIntervalSince1970), .float(now.timeIntervalSince1970), try json(goneHolders)]
        return try await records(sql, binds, action: "updated").first
    }

    func makeDue(origin: String?, now: Date) async throws(CourierError) {
        var sql = "UPDATE courier_queue SET next_attempt_at = ? WHERE state = 'pending' AND next_attempt_at > ?"
        var binds: [SQLiteData] = [.float(now.timeIntervalSince1970), .float(now.timeIntervalSince1970)]
        if let origin {
            sql += " AND origin = ?"
            binds.append(.text(origin))
        }
        _ = try await run(sql, binds, action: "updated")
    }

    func makeDueWaitingForCredentials(now: Date) async throws(CourierError) {
        let sql = """
            UPDATE courier_queue SET next_attempt_at = ?
            WHERE state = 'pending' AND next_attempt_at > ? AND outcome IS NOT NULL
            AND json_extract(CAST(outcome AS TEXT), '$.missingCredentials') IS NOT NULL
            """
        _ = try await run(sql, [.float(now.timeIntervalSince1970), .float(now.timeIntervalSince1970)], action: "updated")
    }

    func retry(id: String, now: Date, expiresAt: Date?) async throws(CourierError) -> QueueRecord {
        let sql = """
            UPDATE courier_queue SET state = 'pending', next_attempt_at = ?, expires_at = ?
            WHERE id = ? AND state != 'in-flight' RETURNING *
            """
        let binds: [SQLiteData] = [.float(now.timeIntervalSince1970), expiresAt.map { .float($0.timeIntervalSince1970) } ?? .null, .text(id)]
        guard let record = try await records(sql, binds, action: "updated").first else { throw try await unchangeable(id) }
        return record
    }

    func delete(id: String) async throws(CourierError) -> QueueRecord {
        let sql = "DELETE FROM courier_queue WHERE id = ? AND state != 'in-flight' RETURNING *"
        guard let record = try await records(sql, [.text(id)], action: "updated").first else { throw try await unchangeable(id) }
        return record
    }

    /// `strings` as a JSON array, for `json_each`.
    private func json(_ strings: [String]) throws(CourierError) -> SQLiteData {
        do {
            return .text(String(decoding: try JSONEncoder().encode(strings), as: UTF8.self))
        } catch {
            throw CourierError(.queueStorage, "The queue's record ids could not be encoded: \(error).", underlyingError: error)
        }
    }
}
