import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import Courier
@testable import CourierQueue

@Suite("Durable queue storage, limits and restart")
struct DurableQueueStoreTests {
    @Test func aFullQueueRefusesWithItsTypedError() async throws {
        let reserved = try vacatedPort()
        defer { withExtendedLifetime(reserved) {} }
        let port = reserved.port
        try await withQueueFolder { path in
            try await withQueue(
                path: path,
                configure: {
                    $0.maximumRecords = 2; $0.deliversOnOpen = false
                }
            ) { queue in
                let request = CourierRequest<Void>(method: .post, path: "http://127.0.0.1:\(port)/idempotent", body: .text("x"))
                _ = try await queue.enqueue(request)
                _ = try await queue.enqueue(request)
                let error = await courierError { _ = try await queue.enqueue(request) }
                #expect(error?.kind == .queueFull)
                #expect(error?.message.contains("maximumRecords") == true)
                #expect(try await queue.records().count == 2)
            }
        }
    }

    @Test(arguments: [
        Data(repeating: 0x41, count: 8192),
        Data("SQLite format 3\0".utf8) + Data(repeating: 0xFF, count: 8176),
    ])
    func aCorruptedDatabaseGivesAClearError(contents: Data) async throws {
        try await withQueueFolder { path in
            try contents.write(to: URL(fileURLWithPath: path))
            let error = await courierError {
                try await withQueue(path: path) { _ in }
            }
            #expect(error?.kind == .queueStorage)
            #expect(error?.message.contains(path) == true)
            #expect(error?.message.contains("move") == true)
        }
    }

    /// Closing while enqueues and deliveries still talk to the database waits for their
    /// statements; later ones are refused with an error, never run on a closed connection.
    @Test func closingWhileStatementsRunLosesNothingAndNeverCrashes() async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                let accepted = NIOLockedValueBox(0)
                try await CourierClient.withClient { client in
                    let queue = try await client.openQueue(testQueueConfiguration(path: path))
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for index in 0..<40 {
                            group.addTask {
                                let request = CourierRequest<Void>(method: .post, path: server.url("/idempotent/\(index)").absoluteString, body: .text("\(index)"))
                                if (try? await queue.enqueue(request)) != nil { accepted.withLockedValue { $0 += 1 } }
                            }
                        }
                        group.addTask { await queue.close() }
                        try await group.waitForAll()
                    }
                }
                // Every enqueue that returned a handle left its record; reopening delivers them.
                let count = accepted.withLockedValue { $0 }
                try await withQueue(path: path) { queue in
                    let records = try await queue.records()
                    #expect(records.count == count)
                    #expect(try await queue.run(deadline: .seconds(300)))
                    #expect(try await queue.records().allSatisfy { $0.state == .delivered })
                }
                #expect(server.ledger.entries.values.allSatisfy { $0.applied == 1 })
            }
        }
    }

    @Test func recordsSurviveReopeningAndKeepTheirRequest() async throws {
        let reserved = try vacatedPort()
        defer { withExtendedLifetime(reserved) {} }
        let port = reserved.port
        try await withQueueFolder { path in
            let written = try await withQueue(path: path, configure: { $0.deliversOnOpen = false }) { queue in
                var request = CourierRequest<Void>(method: .patch, path: "http://127.0.0.1:\(port)/idempotent/7", body: .data(Data([0, 1, 2, 255])))
                request.headers.add(name: "X-Trace", value: "t1")
                return try await queue.enqueue(request, tag: "seven", isOrdered: false, maximumAge: .seconds(90)).record
            }
            let listed = try await withQueue(path: path, configure: { $0.deliversOnOpen = false }) { try await $0.records() }
            let record = try #require(listed.first)
            #expect(listed.count == 1)
            #expect(record.id == written.id)
            #expect(record.request == written.request)
            #expect(record.request.body == .data(Data([0, 1, 2, 255])))
            #expect(record.request.headers["X-Trace"] == "t1")
            #expect(record.request.headers["Idempotency-Key"] == record.request.idempotencyKey)
            #expect(record.request.tag == "seven" && !record.request.isOrdered)
            #expect(record.expiresAt == written.createdAt.addingTimeInterval(90))
        }
    }

    @Test func aRecordLeftInFlightIsSentAgainWithItsOriginalKey() async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                let key = try await withQueue(path: path, configure: { $0.deliversOnOpen = false }) { queue in
                    let record = try await queue.enqueue(CourierRequest<Void>(method: .post, path: server.url("/idempotent/r").absoluteString)).record
                    // As if a process of this host died during the attempt: the record stays in
                    // flight under a lease that has not ended, held by a process that is gone.
                    let holder = "\(QueueWorker.hostName)/\(try exitedProcessID())/dead"
                    let lease = QueueLease(holder: holder, expiresAt: Date().addingTimeInterval(3600))
                    let claimed = try await queue.store.claim(limit: 1, lease: lease, now: Date(), goneHolders: [], sending: [], skippingOrigins: [])
                    #expect(claimed.map(\.id) == [record.id])
                    #expect(try await queue.record(id: record.id)?.state == .inFlight)
                    #expect(try await queue.record(id: record.id)?.lease?.holder == holder)
                    return record.request.idempotencyKey
                }
                let record = try await withQueue(path: path) { queue in
                    let id = try #require(try await queue.records().first?.id)
                    return try await DurableRequestHandle(record: #require(try await queue.record(id: id)), queue: queue).outcome()
                }
                #expect(record.state == .delivered)
                #expect(record.attempts == 2)
                #expect(server.ledger.entries[key]?.applied == 1)
            }
        }
    }

    @Test func expiryIsReportedNeverSilent() async throws {
        let clock = ManualDate()
        try await withQueueFolder { path in
            try await withQueue(
                path: path,
                configure: {
                    $0.now = { clock.now }; $0.deliversOnOpen = false
                }
            ) { queue in
                let events = await queue.events()
                // Never sent: the queue does not deliver until `run`, and by then the record is too old.
                let request = CourierRequest<Void>(method: .post, path: "http://127.0.0.1:9/idempotent", body: .text("late"))
                let handle = try await queue.enqueue(request, maximumAge: .seconds(60))
                clock.advance(by: 61)
                #expect(try await queue.run(deadline: .seconds(60)))
                let record = try await handle.outcome()
                #expect(record.state == .expired)
                var expired: [String] = []
                for await event in events where event.record.state.isFinal {
                    if case .expired(let gone) = event { expired.append(gone.id) }
                    break
                }
                #expect(expired == [record.id])
                #expect(try await queue.records().map(\.state) == [.expired])
                let again = try await queue.retry(id: record.id)
                #expect(again.state == .pending)
                #expect(again.expiresAt == clock.now.addingTimeInterval(60))
            }
        }
    }

    @Test func dropAndRetryNameUnknownRecords() async throws {
        try await withQueueFolder { path in
            try await withQueue(path: path, configure: { $0.deliversOnOpen = false }) { queue in
                #expect(await courierError { try await queue.drop(id: "nope") }?.kind == .queueRecordNotFound)
                #expect(await courierError { try await queue.retry(id: "nope") }?.kind == .queueRecordNotFound)
            }
        }
    }

    @Test func queuedRequestsAreCodable() throws {
        var request = QueuedRequest(method: "PROPPATCH", url: URL(string: "https://example.com/a?b=c")!, body: .file(path: "/tmp/body"), tag: "t")
        request.maximumAge = .seconds(5)
        let data = try JSONEncoder().encode(request)
        #expect(try JSONDecoder().decode(QueuedRequest.self, from: data) == request)
    }
}
