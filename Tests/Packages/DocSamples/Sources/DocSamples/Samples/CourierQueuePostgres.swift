// swift-format-ignore-file
// Written by scripts/doc-samples.py from the CourierQueuePostgres catalog; do not edit.

import CoreMetrics
import Courier
import CourierImages
import CourierLifecycle
import CourierLimitsPostgres
import CourierOpenAPI
import CourierQueue
import CourierCachePostgres
import CourierQueuePostgres
import CourierServerSentEvents
import CourierTesting
import CourierURLSession
import CourierWebSockets
import CourierXML
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import ServiceLifecycle
import Testing

extension Samples {
    /// Sources/CourierQueuePostgres/CourierQueuePostgres.docc/CourierQueuePostgres.md, sample 1
    static func courierQueuePostgres1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let logger = context.logger
        _ = logger
        let postgres = context.postgres
        _ = postgres
        let orderID = context.orderID
        _ = orderID

        let queue = try await client.openQueue(QueueConfiguration(storage: .postgres(URL(string: "postgres://app@db.internal/app")!)))

        try await postgres.withTransaction(logger: logger) { connection in
            try await connection.query("UPDATE orders SET state = 'paid' WHERE id = \(orderID)", logger: logger)
            _ = try await queue.enqueue(CourierRequest<Void>(method: .post, path: "/paid", body: .text(orderID)), in: connection)
        }
    }

    /// Sources/CourierQueuePostgres/DurableQueue+Transaction.swift, sample 1
    static func durableQueueTransaction1(_ context: SampleContext) async throws {
        let logger = context.logger
        _ = logger
        let queue = context.queue!
        _ = queue
        let postgres = context.postgres
        _ = postgres
        let orderID = context.orderID
        _ = orderID
        try await postgres.withTransaction(logger: logger) { connection in
            try await connection.query("UPDATE orders SET state = 'paid' WHERE id = \(orderID)", logger: logger)
            _ = try await queue.enqueue(CourierRequest<Void>(method: .post, path: "/paid", body: .text(orderID)), in: connection)
        }
    }

    /// Sources/CourierQueuePostgres/QueueStorage+Postgres.swift, sample 1
    static func queueStoragePostgres1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let configuration = QueueConfiguration(storage: .postgres(URL(string: "postgres://app@db.internal/app")!))
        let queue = try await client.openQueue(configuration)
    }
}
