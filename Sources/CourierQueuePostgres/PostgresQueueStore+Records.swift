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

    /// Rows another worker is claiming at this moment are locked: `SKIP LOCKED` passes over
    /// them instead of waiting, and the claim takes the next ones.
    func claim(_ candidates: [String], limit: Int, lease: QueueLease, goneHolders: [String], now: Date) async throws(CourierError) -> [QueueRecord] {
        guard !candidates.isEmpty, limit > 0 else { return [] }
        let moment = now.timeIntervalSince1970
        let query: PostgresQuery = """
            UPDATE courier_queue SET state = 'in-flight', attempts = attempts + 1, lease_holder = \(lease.holder),
                lease_expires_at = \(lease.expiresAt.timeIntervalSince1970)
            WHERE sequence IN (
                SELECT q.sequence FROM courier_queue AS q
                WHERE q.id = ANY(\(candidates))
                AND ((q.state = 'pending' AND q.next_attempt_at <= \(moment))
                    OR (q.state = 'in-flight' AND (q.lease_expires_at IS NULL OR q.lease_expires_at <= \(moment) OR q.lease_holder = ANY(\(goneHolders)))))
                AND (NOT q.is_ordered OR NOT EXISTS (
                    SELECT 1 FROM courier_queue AS e
                    WHERE e.origin = q.origin AND e.is_ordered AND e.sequence < q.sequence AND e.state IN ('pending', 'in-flight')
                ))
                ORDER BY q.sequence LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
            )
            RETURNING *
            """
        return try await records(query, action: "updated").sorted { $0.sequence < $1.sequence }
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
        id: String, holder: String, state: QueueRecord.State, outcome: QueueOutcome?, nextAttemptAt: Date?, countsAttempt: Bool
    ) async throws(CourierError) -> QueueRecord? {
        let encoded = try outcome.map { (outcome) throws(CourierError) in try encode(outcome) }
        let next = nextAttemptAt?.timeIntervalSince1970
        let taken = countsAttempt ? 0 : 1
        let query: PostgresQuery = """
            UPDATE courier_queue SET state = \(state.rawValue), outcome = coalesce(\(encoded), outcome),
                next_attempt_at = coalesce(\(next), next_attempt_at), attempts = attempts - \(taken), lease_holder = NULL, lease_expires_at = NULL
            WHERE id = \(id) AND state = 'in-flight' AND lease_holder = \(holder) RETURNING *
            """
        return try await records(query, action: "updated").first
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
