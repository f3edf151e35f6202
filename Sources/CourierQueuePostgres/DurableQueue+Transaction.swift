import Courier
import CourierQueue
import Foundation
import Logging
import PostgresNIO

extension DurableQueue {
    /// Writes `request` to the queue with `connection`, inside the transaction your code has
    /// open on it, so that the request is queued if and only if that transaction commits (the
    /// transactional outbox). Workers see the record, and are woken, at the commit.
    ///
    /// ```swift
    /// try await postgres.withTransaction(logger: logger) { connection in
    ///     try await connection.query("UPDATE orders SET state = 'paid' WHERE id = \(orderID)", logger: logger)
    ///     _ = try await queue.enqueue(CourierRequest<Void>(method: .post, path: "/paid", body: .text(orderID)), in: connection)
    /// }
    /// ```
    ///
    /// The queue must keep its records in the same database (``QueueStorage/postgres(_:)``).
    /// Credential headers are taken out as ``enqueue(_:)`` says; the handle's record is the one
    /// written, and waiting on it after a rollback throws ``CourierError/Kind/queueRecordNotFound``.
    ///
    /// - Throws: ``CourierError/Kind/invalidState`` when the queue keeps its records elsewhere;
    ///   ``CourierError/Kind/queueFull``; ``CourierError/Kind/queueStorage`` when the write
    ///   fails (the transaction is then aborted, as PostgreSQL aborts it on any error).
    public func enqueue<Value>(
        _ request: CourierRequest<Value>, in connection: PostgresConnection, tag: String? = nil, isOrdered: Bool = true,
        maximumAge: Duration? = nil
    ) async throws(CourierError) -> DurableRequestHandle {
        let (queued, sensitive) = try client.queuedRequest(request, tag: tag, isOrdered: isOrdered, maximumAge: maximumAge)
        return try await enqueue(queued, sensitiveHeaders: sensitive, in: connection)
    }

    /// Writes `request` with `connection`, inside its open transaction; see
    /// ``enqueue(_:in:tag:isOrdered:maximumAge:)``.
    public func enqueue(_ request: QueuedRequest, in connection: PostgresConnection) async throws(CourierError) -> DurableRequestHandle {
        try await enqueue(request, sensitiveHeaders: [], in: connection)
    }

    private func enqueue(_ request: QueuedRequest, sensitiveHeaders: Set<String>, in connection: PostgresConnection) async throws(CourierError)
        -> DurableRequestHandle
    {
        guard let store = backend as? PostgresQueueStore else {
            throw CourierError(
                .invalidState,
                "This queue keeps its records in \(backend.location), not in PostgreSQL; enqueue(_:in:) needs a queue opened with QueueStorage.postgres(_:) on the connection's database."
            )
        }
        let logger = client.configuration.logger
        return try await enqueue(request, sensitiveHeaders: sensitiveHeaders) { request, id, now, expiry, maximum throws(CourierError) in
            let query = PostgresQueueStore.insertion(
                request, id: id, now: now, expiresAt: expiry, maximumRecords: maximum, encoded: try await store.encode(request)
            )
            let rows: [PostgresRow]
            do {
                rows = try await connection.query(query, logger: logger).collect()
            } catch {
                throw PostgresQueueStore.storageError(error, location: store.location, action: "written in the transaction")
            }
            guard let row = rows.first else { throw store.full(maximum, url: request.url) }
            return try await store.decode(row)
        }
    }
}
