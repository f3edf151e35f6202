import Courier
import CourierPostgres
import CourierQueue
import Foundation
import NIOCore
import PostgresNIO

/// The two statements every delivery runs, claim and settle, prepared once on each connection
/// so that PostgreSQL parses and plans them once, not on every call.
extension PostgresQueueStore {
    /// Claims for the lease's holder up to `limit` records that may leave now (see
    /// ``QueueBackend/claim(limit:lease:now:goneHolders:sending:skippingOrigins:)``).
    struct ClaimStatement: RowStatement {
        static let name = "courier_queue_claim_2"
        static let sql = """
            UPDATE courier_queue SET state = 'in-flight', attempts = attempts + 1, lease_holder = $1, lease_expires_at = $2
            WHERE sequence IN (
                SELECT q.sequence FROM courier_queue AS q
                WHERE q.state IN ('pending', 'in-flight')
                AND ((q.state = 'pending' AND q.next_attempt_at <= $3)
                    OR (q.state = 'in-flight' AND (q.lease_expires_at IS NULL OR q.lease_expires_at <= $3 OR q.lease_holder = ANY($4))))
                AND NOT (q.id = ANY($5))
                AND (q.expires_at IS NULL OR q.expires_at > $3)
                AND NOT (q.origin = ANY($6))
                AND (NOT q.is_ordered OR q.sequence IN (
                    SELECT min(e.sequence) FROM courier_queue AS e WHERE e.is_ordered AND e.state IN ('pending', 'in-flight') GROUP BY e.origin
                ))
                ORDER BY q.sequence LIMIT $7
                FOR UPDATE SKIP LOCKED
            )
            RETURNING *
            """
        static let bindingDataTypes: [PostgresDataType] = [.text, .float8, .float8, .textArray, .textArray, .textArray, .int8]

        let bindings: PostgresBindings

        /// - Parameters:
        ///   - reclaimed: holders whose records may be taken before their leases end: gone
        ///     ones, and the claimer itself for what it no longer sends.
        init(lease: QueueLease, now: Date, reclaimed: [String], sending: [String], skippingOrigins: [String], limit: Int) {
            var bindings = PostgresBindings(capacity: 7)
            bindings.append(lease.holder)
            for moment in [lease.expiresAt, now] { bindings.append(moment.timeIntervalSince1970) }
            for names in [reclaimed, sending, skippingOrigins] { bindings.append(names) }
            bindings.append(limit)
            self.bindings = bindings
        }
    }

    /// Ends `holder`'s lease on the record `id` with its new state and outcome; returns the
    /// attempts and the next attempt's time, or no row when `holder` no longer holds it.
    struct SettleStatement: RowStatement {
        static let name = "courier_queue_settle_2"
        static let sql = """
            UPDATE courier_queue SET state = $1, outcome = coalesce($2, outcome), next_attempt_at = coalesce($3, next_attempt_at),
                attempts = attempts - $4, lease_holder = NULL, lease_expires_at = NULL
            WHERE id = $5 AND state = 'in-flight' AND lease_holder = $6
            RETURNING attempts, next_attempt_at
            """
        static let bindingDataTypes: [PostgresDataType] = [.text, .bytea, .float8, .int8, .text, .text]

        let bindings: PostgresBindings

        /// - Parameter attemptsTaken: 1 to take back the attempt the claim counted, 0 to keep it.
        init(id: String, holder: String, state: QueueRecord.State, outcome: ByteBuffer?, nextAttemptAt: Date?, attemptsTaken: Int) {
            var bindings = PostgresBindings(capacity: 6)
            bindings.append(state.rawValue)
            bindings.append(outcome)
            bindings.append(nextAttemptAt?.timeIntervalSince1970)
            bindings.append(attemptsTaken)
            bindings.append(id)
            bindings.append(holder)
            self.bindings = bindings
        }
    }
}
