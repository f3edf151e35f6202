import Courier
import CourierTesting
import Foundation
import Logging
import SQLiteNIO
import Testing

@testable import CourierQueue

@Suite("Durable queue: several workers on one SQLite file")
struct DurableQueueWorkersTests {
    @Test func twoWorkersShareTheFileAndSendEachRecordOnce() async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                try await QueueWorkerScenarios.workersShareTheQueue(.sqlite(path: path), server: server)
            }
        }
    }

    @Test func aLeaseOfAnotherHostIsWaitedOutThenTakenOver() async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                try await QueueWorkerScenarios.aLeaseIsWaitedOutThenTakenOver(.sqlite(path: path), server: server) { id, lease in
                    let store = try await SQLiteQueueStore.open(path: path, logger: Logger(label: "courier.test.queue"))
                    let claimed = try await store.claim(limit: 1, lease: lease, now: Date(), goneHolders: [], sending: [], skippingOrigins: [])
                    await store.close()
                    #expect(claimed.map(\.id) == [id])
                }
            }
        }
    }

    /// Another worker claims what this one planned to send, between its plan and its claim, and
    /// dies without a word: nothing in the storage changes to wake this worker, which must still
    /// wait the other's lease out and then deliver.
    @Test func recordsAnotherWorkerTookBetweenThePlanAndTheClaimAreWaitedOut() async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                try await CourierClient.withClient { client in
                    let producer = try await client.openQueue(QueueWorkerScenarios.configuration(.sqlite(path: path), delivers: false))
                    let record = try await producer.enqueue(CourierRequest<Void>(method: .post, path: server.url("/idempotent/raced").absoluteString)).record
                    await producer.close()

                    let store = try await SQLiteQueueStore.open(path: path, logger: Logger(label: "courier.test.queue"))
                    let racing = ClaimRacingBackend(store: store, rival: "another-host.invalid/4242/race", rivalLease: .seconds(2))
                    let queue = DurableQueue(client: client, store: racing, configuration: QueueWorkerScenarios.configuration(.sqlite(path: path)))
                    let emptied = try await queue.run(deadline: .seconds(60))
                    let after = try await queue.record(id: record.id)
                    await queue.close()
                    #expect(racing.rivalTook == [record.id], "the rival took the record before this worker's claim")
                    #expect(emptied)
                    #expect(after?.state == .delivered)
                    #expect(server.ledger.entries[record.request.idempotencyKey]?.applied == 1)
                }
            }
        }
    }

    @Test func aClaimTakesOnlyWhatMayLeaveNow() async throws {
        try await withQueueFolder { path in
            try await QueueWorkerScenarios.aClaimTakesOnlyWhatMayLeaveNow(.sqlite(path: path))
        }
    }

    @Test func aBusyWorkerStillFillsAFreeSlot() async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                try await QueueWorkerScenarios.aBusyWorkerStillFillsAFreeSlot(.sqlite(path: path), server: server)
            }
        }
    }

    @Test func aDatabaseFromBeforeLeasesIsMigratedAndItsRecordInFlightSentAgain() async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                let key = "migrated-key"
                // A file as Courier wrote it before leases: format 1, a record left in flight.
                let store = try await SQLiteQueueStore.open(path: path, logger: Logger(label: "courier.test.queue"))
                var request = QueuedRequest(method: .post, url: server.url("/idempotent/old"))
                request.headers.set(name: "Idempotency-Key", value: key)
                request.idempotencyKey = key
                let written = try await store.insert(request, id: "old-record", now: Date(), expiresAt: nil, maximumRecords: 10)
                for statement in [
                    "DROP INDEX courier_queue_active", "DROP INDEX courier_queue_due", "ALTER TABLE courier_queue DROP COLUMN lease_holder",
                    "ALTER TABLE courier_queue DROP COLUMN lease_expires_at", "UPDATE courier_queue SET state = 'in-flight', attempts = 1",
                    "PRAGMA user_version=1",
                ] {
                    _ = try await store.run(statement, action: "rewritten")
                }
                await store.close()

                let record = try await withQueue(path: path) { queue in
                    try await DurableRequestHandle(record: written, queue: queue).outcome()
                }
                #expect(record.state == .delivered)
                #expect(record.attempts == 2)
                #expect(server.ledger.entries[key]?.applied == 1)
                let reopened = try await SQLiteQueueStore.open(path: path, logger: Logger(label: "courier.test.queue"))
                let version = try await reopened.run("PRAGMA user_version", action: "read").first?.columns.first?.data.integer
                await reopened.close()
                #expect(version == SQLiteQueueStore.schemaVersion)
            }
        }
    }

    @Test func absurdConcurrencyAndLeasesAreRefused() async throws {
        try await withQueueFolder { path in
            for configure in [{ (c: inout QueueConfiguration) in c.maximumConcurrentDeliveries = 0 }, { $0.leaseDuration = .milliseconds(10) }] {
                await #expect(throws: CourierError.self) {
                    try await withQueue(path: path, configure: configure) { _ in }
                }
            }
        }
    }
}
