import Courier
import CourierQueue
import Foundation
import NIOCore
import PostgresNIO

/// The changes the queue makes to its records; each is one statement, so that a worker that
/// dies between two of them leaves every record in a state another resumes from.
extension PostgresQueueStore {
    func insert(_ request: QueuedRequest, id: String, now: Date, expiresAt: Date?, maximumRecords: Int) async throws(CourierError) -> QueueRecord {
        let query = try PostgresQueueStore.insertion(request, id: id, now: now, expiresAt: expiresAt, maximumRecords: maximumRecords, encoded: encode(request))
        guard let record = try await records(query, action: "written").first else { throw full(maximumRecords, url: request.url) }
        return record
    }

    /// The statement that writes a new pending record, unless `maximumRecords` wait already.
    static func insertion(
        _ request: QueuedRequest, id: String, now: Date, expiresAt: Date?, maximumRecords: Int, encoded: ByteBuffer
    ) -> PostgresQuery {
        let created = now.timeIntervalSince1970
        let expiry = expiresAt?.timeIntervalSince1970
        return """
            INSERT INTO courier_queue (id, origin, is_ordered, state, attempts, created_at, next_attempt_at, expires_at, tag, request)
            SELECT \(id), \(request.origin), \(request.isOrdered), 'pending', 0, \(created), \(created), \(expiry), \(request.tag), \(encoded)
            WHERE (SELECT count(*) FROM courier_queue WHERE state IN ('pending', 'in-flight')) < \(maximumRecords)
            RETURNING *
            """
    }

    func activeSlots() async throws(CourierError) -> [QueuePlanner.Slot] {
        let query: PostgresQuery = """
            SELECT id, origin, is_ordered, state, created_at, next_attempt_at, expires_at, lease_holder, lease_expires_at FROM courier_queue
            WHERE state IN ('pending', 'in-flight') ORDER BY sequence
            """
        var slots: [QueuePlanner.Slot] = []
        for row in try await run(query, action: "read") {
            do {
                let (id, origin, ordered, stateName, created, next, expires, holder, leaseEnd) = try row.decode(
                    (String, String, Bool, String, Double, Double, Double?, String?, Double?).self
                )
                guard let state = QueueRecord.State(rawValue: stateName) else { throw PostgresDecodingError.Code.typeMismatch }
                slots.append(
                    QueuePlanner.Slot(
                        id: id, origin: origin, isOrdered: ordered, state: state, nextAttemptAt: Date(timeIntervalSince1970: next),
                        expiresAt: expires.map(Date.init(timeIntervalSince1970:)), createdAt: Date(timeIntervalSince1970: created),
                        lease: holder.flatMap { holder in leaseEnd.map { QueueLease(holder: holder, expiresAt: Date(timeIntervalSince1970: $0)) } }
                    )
                )
            } catch {
                throw CourierError(.queueStorage, "A record in the queue database at \(location) has a malformed column (\(error)).", underlyingError: error)
            }
        }
        return slots
    }

    func allRecords() async throws(CourierError) -> [QueueRecord] {
        try await records("SELECT * FROM courier_queue ORDER BY sequence", action: "read")
    }

    func record(id: String) async throws(CourierError) -> QueueRecord? {
        try await records("SELECT * FROM courier_queue WHERE id = \(id)", action: "read").first
    }

    func activeCount() async throws(CourierError) -> Int {
        let rows = try await run("SELECT count(*) FROM courier_queue WHERE state IN ('pending', 'in-flight')", action: "read")
        do {
            return try rows.first.map { try $0.decode(Int.self) } ?? 0
        } catch {
            throw CourierError(.queueStorage, "The queue database at \(location) answered a count that is not a number (\(error)).", underlyingError: error)
        }
    }

    /// Rows another worker is claiming at this moment are locked: `SKIP LOCKED` passes over
    /// them instead of waiting, and the claim takes the next ones. The waiting records are
    /// read in queue order through `courier_queue_due`, up to the first `limit` that may leave;
    /// each origin's oldest ordered record is found once per statement (``ClaimStatement``).
    func claim(
        limit: Int, lease: QueueLease, now: Date, goneHolders: [String], sending: [String], skippingOrigins: [String]
    ) async throws(CourierError) -> [QueueRecord] {
        guard limit > 0 else { return [] }
        let statement = ClaimStatement(
            lease: lease, now: now, reclaimed: goneHolders + [lease.holder], sending: sending, skippingOrigins: skippingOrigins, limit: limit
        )
        var claimed: [QueueRecord] = []
        for row in try await run(statement, action: "updated") { claimed.append(try decode(row)) }
        return claimed.sorted { $0.sequence < $1.sequence }
    }

    func renew(_ ids: [String], holder: String, expiresAt: Date) async throws(CourierError) {
        guard !ids.isEmpty else { return }
        let query: PostgresQuery = """
            UPDATE courier_queue SET lease_expires_at = \(expiresAt.timeIntervalSince1970)
            WHERE state = 'in-flight' AND lease_holder = \(holder) AND id = ANY(\(ids))
            """
        _ = try await run(query, action: "updated")
    }

    func settle(
        _ record: QueueRecord, holder: String, state: QueueRecord.State, outcome: QueueOutcome?, nextAttemptAt: Date?, countsAttempt: Bool
    ) async throws(CourierError) -> QueueRecord? {
        let statement = SettleStatement(
            id: record.id, holder: holder, state: state, outcome: try outcome.map { (outcome) throws(CourierError) in try encode(outcome) },
            nextAttemptAt: nextAttemptAt, attemptsTaken: countsAttempt ? 0 : 1
        )
        guard let row = try await run(statement, action: "updated").first else { return nil }
        do {
            let (attempts, due) = try row.decode((Int, Double).self)
            return record.settled(state, outcome: outcome, attempts: attempts, nextAttemptAt: Date(timeIntervalSince1970: due))
        } catch {
            throw CourierError(.queueStorage, "The record \(record.id) in the queue database at \(location) has a malformed column (\(error)).", underlyingError: error)
        }
    }

    func expire(id: String, now: Date, goneHolders: [String]) async throws(CourierError) -> QueueRecord? {
        let moment = now.timeIntervalSince1970
        let query: PostgresQuery = """
            UPDATE courier_queue SET state = 'expired', lease_holder = NULL, lease_expires_at = NULL
            WHERE id = \(id) AND expires_at <= \(moment)
            AND (state = 'pending' OR (state = 'in-flight' AND (lease_expires_at IS NULL OR lease_expires_at <= \(moment) OR lease_holder = ANY(\(goneHolders)))))
            RETURNING *
            """
        return try await records(query, action: "updated").first
    }

    func makeDue(origin: String?, now: Date) async throws(CourierError) {
        let moment = now.timeIntervalSince1970
        let query: PostgresQuery = """
            UPDATE courier_queue SET next_attempt_at = \(moment)
            WHERE state = 'pending' AND next_attempt_at > \(moment) AND (\(origin)::text IS NULL OR origin = \(origin))
            """
        _ = try await run(query, action: "updated")
    }

    func makeDueWaitingForCredentials(now: Date) async throws(CourierError) {
        let moment = now.timeIntervalSince1970
        let query: PostgresQuery = """
            UPDATE courier_queue SET next_attempt_at = \(moment)
            WHERE state = 'pending' AND next_attempt_at > \(moment) AND outcome IS NOT NULL
            AND convert_from(outcome, 'UTF8')::jsonb ? 'missingCredentials'
            """
        _ = try await run(query, action: "updated")
    }

    func retry(id: String, now: Date, expiresAt: Date?) async throws(CourierError) -> QueueRecord {
        let query: PostgresQuery = """
            UPDATE courier_queue SET state = 'pending', next_attempt_at = \(now.timeIntervalSince1970), expires_at = \(expiresAt?.timeIntervalSince1970)
            WHERE id = \(id) AND state != 'in-flight' RETURNING *
            """
        guard let record = try await records(query, action: "updated").first else { throw try await unchangeable(id) }
        return record
    }

    func delete(id: String) async throws(CourierError) -> QueueRecord {
        let query: PostgresQuery = "DELETE FROM courier_queue WHERE id = \(id) AND state != 'in-flight' RETURNING *"
        guard let record = try await records(query, action: "updated").first else { throw try await unchangeable(id) }
        return record
    }
}
