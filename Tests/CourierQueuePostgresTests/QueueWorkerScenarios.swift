import Courier
import CourierTesting
import Foundation
import Logging
import Testing

@testable import CourierQueue

/// Scenarios of several workers on one queue storage, run against each storage: the SQLite
/// file here, PostgreSQL in CourierQueuePostgresTests (which links this file).
enum QueueWorkerScenarios {
    /// A configuration on `storage` with short backoffs and at most `concurrency` deliveries.
    static func configuration(_ storage: QueueStorage, concurrency: Int = 32, delivers: Bool = true) -> QueueConfiguration {
        var configuration = QueueConfiguration(storage: storage)
        configuration.retryPolicy = CourierRetryPolicy(maximumAttempts: 100, baseDelay: .milliseconds(20), maximumDelay: .milliseconds(200))
        configuration.probeTimeout = .seconds(2)
        configuration.maximumConcurrentDeliveries = concurrency
        configuration.deliversOnOpen = delivers
        return configuration
    }

    /// Two workers deliver what a third process wrote: each record once, ordered ones in order,
    /// and both workers take part. The unordered records are answered once four of them wait
    /// at the server: neither worker sends more than three at a time, so both have claimed
    /// some by then, however late either starts on a loaded machine.
    static func workersShareTheQueue(_ storage: QueueStorage, server: TestServer) async throws {
        try await CourierClient.withClient { client in
            let producer = try await client.openQueue(configuration(storage, delivers: false))
            var ids: [String] = []
            for index in 0..<24 {
                let url = server.url("/idempotent/u\(index)?gate=both-workers").absoluteString
                ids.append(try await producer.enqueue(CourierRequest<Void>(method: .post, path: url), isOrdered: false).id)
            }
            for index in 0..<6 {
                let url = server.url("/idempotent/o\(index)?delay=0.02").absoluteString
                ids.append(try await producer.enqueue(CourierRequest<Void>(method: .post, path: url)).id)
            }
            await producer.close()

            let first = try await client.openQueue(configuration(storage, concurrency: 3, delivers: false))
            let second = try await client.openQueue(configuration(storage, concurrency: 3, delivers: false))
            let firstEvents = await first.events()
            let secondEvents = await second.events()
            async let firstDone = first.run(deadline: .seconds(120))
            async let secondDone = second.run(deadline: .seconds(120))
            // Bounded: after a minute the gate opens anyway, and the counts below tell.
            for _ in 0..<600 where server.requestsWaiting(atGate: "both-workers") < 4 {
                try await Task.sleep(for: .milliseconds(100))
            }
            server.openGate("both-workers")
            let done = try await (firstDone, secondDone)
            await first.close()
            await second.close()
            #expect(done == (true, true))

            let delivered = await (count(firstEvents), count(secondEvents))
            #expect(delivered.0 + delivered.1 == ids.count)
            #expect(delivered.0 > 0 && delivered.1 > 0)

            let reader = try await client.openQueue(configuration(storage, delivers: false))
            let records = try await reader.records()
            await reader.close()
            #expect(records.count == ids.count)
            #expect(records.allSatisfy { $0.state == .delivered && $0.attempts == 1 && $0.lease == nil })
            let entries = server.ledger.entries
            #expect(entries.count == ids.count)
            #expect(entries.values.allSatisfy { $0.applied == 1 && $0.requests == 1 })
            let ordered = server.ledger.appliedKeys.compactMap { entries[$0]?.path }.filter { $0.hasPrefix("/idempotent/o") }
            #expect(ordered == (0..<6).map { "/idempotent/o\($0)" })
        }
    }

    /// The deliveries a worker's events report, once its event stream has ended.
    private static func count(_ events: AsyncStream<QueueEvent>) async -> Int {
        var delivered = 0
        for await event in events {
            if case .delivered = event { delivered += 1 }
        }
        return delivered
    }

    /// A record in flight under a lease held by a worker of another host is left alone while
    /// the lease lasts, and sent again, with its key, once it has ended.
    static func aLeaseIsWaitedOutThenTakenOver(_ storage: QueueStorage, server: TestServer, claim: (String, QueueLease) async throws -> Void)
        async throws
    {
        try await CourierClient.withClient { client in
            let producer = try await client.openQueue(configuration(storage, delivers: false))
            let record = try await producer.enqueue(CourierRequest<Void>(method: .post, path: server.url("/idempotent/leased").absoluteString)).record
            await producer.close()
            let lease = QueueLease(holder: "another-host.invalid/4242/abcd", expiresAt: Date().addingTimeInterval(3600))
            try await claim(record.id, lease)

            let held = try await client.openQueue(configuration(storage, delivers: false))
            #expect(try await held.run(deadline: .milliseconds(700)) == false)
            let during = try await held.record(id: record.id)
            await held.close()
            #expect(during?.state == .inFlight)
            #expect(during?.lease?.holder == lease.holder)
            #expect(server.ledger.entries.isEmpty)

            // Two hours later, as this worker's clock says: the lease has ended.
            var later = configuration(storage, delivers: false)
            later.now = { Date().addingTimeInterval(7200) }
            let taker = try await client.openQueue(later)
            #expect(try await taker.run(deadline: .seconds(60)))
            let after = try await taker.record(id: record.id)
            await taker.close()
            #expect(after?.state == .delivered)
            #expect(after?.attempts == 2)
            #expect(server.ledger.entries[record.request.idempotencyKey]?.applied == 1)
        }
    }

    /// A claim takes, in queue order, what is due and may leave now: not an ordered record
    /// behind an earlier one for its origin, an expired record, a record not yet due, one for a
    /// skipped origin, nor one in flight under another worker's live lease; it takes back the
    /// claimer's own records it no longer sends, and those of holders it knows are gone.
    static func aClaimTakesOnlyWhatMayLeaveNow(_ storage: QueueStorage) async throws {
        let store = try await storage.open(Logger(label: "courier.test.queue"))
        do {
            let now = Date()
            func insert(_ name: String, ordered: Bool = true, origin: String = "a", at: Date = now, expiresAt: Date? = nil) async throws -> String {
                let request = QueuedRequest(method: .post, url: URL(string: "https://\(origin).example/\(name)")!, isOrdered: ordered)
                return try await store.insert(request, id: name, now: at, expiresAt: expiresAt, maximumRecords: 100).id
            }
            let first = try await insert("first")
            _ = try await insert("behind-first")
            _ = try await insert("expired", ordered: false, origin: "b", expiresAt: now.addingTimeInterval(-1))
            _ = try await insert("skipped", ordered: false, origin: "c")
            _ = try await insert("later", ordered: false, origin: "b", at: now.addingTimeInterval(600))
            let free = try await insert("free", ordered: false, origin: "b")
            let skipped = QueuedRequest(method: .post, url: URL(string: "https://c.example/")!).origin
            func claim(_ holder: String, at moment: Date = now, gone: [String] = [], sending: [String] = []) async throws -> [String] {
                let lease = QueueLease(holder: holder, expiresAt: moment.addingTimeInterval(30))
                return try await store.claim(
                    limit: 10, lease: lease, now: moment, goneHolders: gone, sending: sending, skippingOrigins: [skipped]
                ).map(\.id)
            }
            #expect(try await claim("one") == [first, free])
            #expect(try await claim("two") == [])
            // "one" sends only the first; the other is taken back, its attempt counted.
            #expect(try await claim("one", sending: [first]) == [free])
            #expect(try await store.record(id: free)?.attempts == 2)
            #expect(try await claim("two", gone: ["one"]) == [first, free])
            #expect(try await store.record(id: first)?.lease?.holder == "two")
            #expect(try await store.activeCount() == 6)
            // Past the leases and the later record's time: every lease has ended.
            #expect(try await claim("three", at: now.addingTimeInterval(900)) == [first, "later", free])
            await store.close()
        } catch {
            await store.close()
            throw error
        }
    }

    /// A worker with nearly every slot taken by slow deliveries (15 of 16, below the two free
    /// slots a claim between plans waits for) still sends a record enqueued once its plans have
    /// nothing left to look at, while the slow ones are still held: the skipped claim asks for a
    /// plan within a second.
    static func aBusyWorkerStillFillsAFreeSlot(_ storage: QueueStorage, server: TestServer) async throws {
        try await TestServer.withServer { other in
            try await CourierClient.withClient { client in
                let queue = try await client.openQueue(configuration(storage, concurrency: 16))
                #expect(await queue.claimBatch == 2)
                let events = await queue.events()
                for index in 0..<15 {
                    let url = server.url("/gate/busy?n=\(index)").absoluteString
                    _ = try await queue.enqueue(CourierRequest<Void>(method: .post, path: url), isOrdered: false)
                }
                var attempts = 0
                for await event in events {
                    if case .attempt = event { attempts += 1 }
                    if attempts == 15 { break }
                }
                // Until no plan is due soon: only the skipped claim can then ask for one.
                for _ in 0..<400 {
                    if await queue.timerAt.map({ $0 > Date().addingTimeInterval(60) }) ?? true { break }
                    try await Task.sleep(for: .milliseconds(25))
                }
                let quick = try await queue.enqueue(CourierRequest<Void>(method: .post, path: other.url("/idempotent/quick").absoluteString))
                let record = await withTaskGroup(of: QueueRecord?.self) { group in
                    group.addTask { try? await quick.outcome() }
                    group.addTask {
                        try? await Task.sleep(for: .seconds(30))
                        return nil
                    }
                    let first = await group.next() ?? nil
                    group.cancelAll()
                    return first
                }
                #expect(record?.state == .delivered)
                #expect(other.ledger.entries.count == 1)
                #expect(server.requestsWaiting(atGate: "busy") > 0)
                server.openGate("busy")
                #expect(try await queue.run(deadline: .seconds(60)))
                await queue.close()
            }
        }
    }
}
