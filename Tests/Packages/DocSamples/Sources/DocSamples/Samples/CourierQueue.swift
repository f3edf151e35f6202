// swift-format-ignore-file
// Written by scripts/doc-samples.py from the CourierQueue catalog; do not edit.

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
    /// Sources/CourierQueue/CourierQueue.docc/CourierQueue.md, sample 1
    static func courierQueue1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let outboxPath = context.outboxPath
        _ = outboxPath
        let draft = context.draft
        _ = draft

        let queue = try await client.openQueue(QueueConfiguration(path: outboxPath))
        let handle = try await queue.enqueue(CourierRequest<Void>(method: .post, path: "/notes", body: try .json(draft)))
    }

    /// Sources/CourierQueue/CourierQueue.docc/OfflineQueue.md, sample 1
    static func offlineQueue1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let outboxPath = context.outboxPath
        _ = outboxPath
        let draft = context.draft
        _ = draft
        let queue = try await client.openQueue(QueueConfiguration(path: outboxPath))
        let note = CourierRequest<Void>(method: .post, path: "/notes", body: try .json(draft))
        let handle = try await queue.enqueue(note, tag: "draft-17")

        let first = try await handle.firstAttempt()      // delivered now, or pending
        for await event in await queue.events() {
            if case .delivered(let record, let response) = event { print(record.id, response.status) }
        }
    }

    /// Sources/CourierQueue/CourierQueue.docc/OfflineQueue.md, sample 2
    static func offlineQueue2(_ context: SampleContext) async throws {
        let queue = context.queue!
        _ = queue
        // The app moves to the background: send what waits in the time the system grants (ask for
        // it with a background task), then stop.
        _ = try await queue.run(deadline: .seconds(20))  // false when some records still wait
        await queue.pause()

        // The app is active again.
        await queue.resume()
    }

    /// Sources/CourierQueue/CourierQueue.docc/OfflineQueue.md, sample 3
    static func offlineQueue3(_ context: SampleContext) async throws {
        let client = context.client
        _ = client

        let configuration = QueueConfiguration(storage: .postgres(URL(string: "postgres://app@db.internal/app")!))
        let queue = try await client.openQueue(configuration)
    }

    /// Sources/CourierQueue/CourierQueue.docc/OfflineQueue.md, sample 4
    static func offlineQueue4(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var request = context.request
        _ = request
        let outboxPath = context.outboxPath
        _ = outboxPath
        let session = context.session
        _ = session
        var configuration = QueueConfiguration(path: outboxPath)
        configuration.credentials = QueueCredentials { request, names in
            guard request.url.host == "api.example.com" else { return Headers() }
            return ["Authorization": "Bearer " + (try await session.currentToken())]
        }
        let queue = try await client.openQueue(configuration)
    }

    /// Sources/CourierQueue/DurableQueue+Observation.swift, sample 1
    static func durableQueueObservation1(_ context: SampleContext) async throws {
        let queue = context.queue!
        _ = queue
        for await event in await queue.events() {
            if case .delivered(let record, let response) = event { print(record.id, response.status) }
        }
    }

    /// Sources/CourierQueue/DurableQueue.swift, sample 1
    static func durableQueue1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let outboxPath = context.outboxPath
        _ = outboxPath
        let queue = try await client.openQueue(QueueConfiguration(path: outboxPath))
        let handle = try await queue.enqueue(CourierRequest<Void>(method: .post, path: "/notes", body: .text("hi")))
        let record = try await handle.outcome()   // delivered, failed or expired
        await queue.close()
    }

    /// Sources/CourierQueue/QueueConfiguration.swift, sample 1
    static func queueConfiguration1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var configuration = QueueConfiguration(path: "/var/lib/app/outbox.sqlite")
        configuration.maximumAge = .seconds(24 * 3600)
        let queue = try await client.openQueue(configuration)
    }

    /// Sources/CourierQueue/QueueCredentialSource.swift, sample 1
    static func queueCredentialSource1(_ context: SampleContext) async throws {
        var request = context.request
        _ = request
        let outboxPath = context.outboxPath
        _ = outboxPath
        let session = context.session
        _ = session
        var configuration = QueueConfiguration(path: outboxPath)
        configuration.credentials = QueueCredentials { request, names in
            guard request.url.host == "api.example.com" else { return Headers() }
            return ["Authorization": "Bearer " + (try await session.currentToken())]
        }
    }

    /// Sources/CourierQueue/QueueService.swift, sample 1
    static func queueService1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let server = context.server
        _ = server
        let logger = context.logger
        _ = logger
        let outboxPath = context.outboxPath
        _ = outboxPath
        let queue = try await client.openQueue(QueueConfiguration(path: outboxPath))
        let group = ServiceGroup(
            services: [ClientService(client: client), QueueService(queue: queue), server],
            gracefulShutdownSignals: [.sigterm], logger: logger
        )
        try await group.run()
    }

    /// Sources/CourierQueue/QueuedRequest.swift, sample 1
    static func queuedRequest1(_ context: SampleContext) async throws {
        let queue = context.queue!
        _ = queue
        var queued = QueuedRequest(method: .post, url: URL(string: "https://api.example.com/notes")!)
        queued.body = .file(path: "/var/spool/app/note-17.json")
        queued.headers.add(name: "Content-Type", value: "application/json")
        let handle = try await queue.enqueue(queued)
    }

    /// Sources/CourierQueue/Storage/QueueStorage.swift, sample 1
    static func queueStorage1(_ context: SampleContext) async throws {
        var configuration = QueueConfiguration()
        configuration.storage = .sqlite(path: "/var/lib/app/outbox.sqlite")
    }
}
