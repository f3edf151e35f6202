import Courier
import CourierPostgres
import CourierTesting
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import Testing

@testable import CourierCachePostgres

/// The PostgreSQL cache store against a real, throwaway PostgreSQL server. Several stores on one
/// database stand for several processes: each has its own connections and its own memory.
@Suite("PostgreSQL cache store", .serialized)
struct PostgresCacheStorageTests {
    static let logger = Logger(label: "courier.tests.cache.postgres")

    private func entry(_ key: String, variant: String = "", body: Data, age: TimeInterval = 0) -> CourierCacheEntry {
        let date = Date(timeIntervalSince1970: 1_800_000_000 + age)
        return CourierCacheEntry(
            key: key, variant: variant, status: 200, reasonPhrase: "OK", headers: ["Cache-Control": "max-age=60", "Content-Type": "text/plain"],
            body: body, requestDate: date, responseDate: date, tags: ["courier.version": "3"], protocolVersion: .http2
        )
    }

    /// Runs a statement on its own connection to the database at `url`.
    private func execute(_ sql: String, on url: URL) async throws {
        let configuration = try PostgresLocation(url, purpose: "cache").connectionConfiguration()
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 9, logger: Self.logger)
        do {
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger).collect()
        } catch {
            await closeAndWait(connection)
            throw error
        }
        await closeAndWait(connection)
    }

    @Test func anEntryStoredByOneProcessIsReadAndRemovedByAnother() async throws {
        try await withSharedPostgres { url in
            let first = try PostgresCacheStorage(url: url)
            let second = try PostgresCacheStorage(url: url)
            let stored = entry("https://api.example/a", body: Data("hello".utf8))
            let other = entry("https://api.example/a", variant: "accept-language:fr", body: Data("bonjour".utf8), age: 1)
            try await first.store(stored)
            try await first.store(other)
            let read = try await second.entries(forKey: stored.key)
            #expect(read == [other, stored])
            #expect(try await second.statistics() == CacheStatistics(entryCount: 2, totalBytes: stored.cost + other.cost))
            try await second.removeEntry(forKey: stored.key, variant: other.variant)
            #expect(try await first.entries(forKey: stored.key) == [stored])
            try await second.removeEntries(forKey: stored.key)
            #expect(try await first.entries(forKey: stored.key).isEmpty)
            try await first.store(stored)
            try await second.removeAll()
            #expect(try await first.entries(forKey: stored.key).isEmpty)
            #expect(try await first.statistics() == CacheStatistics(entryCount: 0, totalBytes: 0))
            await first.shutdown()
            await second.shutdown()
        }
    }

    @Test func aLargeBodySpanningManyRowsReadsBackWhole() async throws {
        try await withSharedPostgres { url in
            let storage = try PostgresCacheStorage(url: url)
            var generator = SystemRandomNumberGenerator()
            let body = Data((0..<(3 * 1024 * 1024 + 17)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let stored = entry("https://api.example/large", body: body)
            try await storage.store(stored)
            #expect(try await storage.entries(forKey: stored.key) == [stored])
            let empty = entry("https://api.example/empty", body: Data())
            try await storage.store(empty)
            #expect(try await storage.entries(forKey: empty.key) == [empty])
            await storage.shutdown()
        }
    }

    @Test func theByteBoundHoldsForEveryProcessAndEvictsTheLeastRecentlyUsed() async throws {
        try await withSharedPostgres { url in
            let bound = 200 * 1024
            let first = try PostgresCacheStorage(url: url, maximumBytes: bound)
            let second = try PostgresCacheStorage(url: url, maximumBytes: bound)
            let body = Data(repeating: 7, count: 40 * 1024)
            for index in 0..<12 {
                let writer = index.isMultiple(of: 2) ? first : second
                try await writer.store(entry("https://api.example/\(index)", body: body))
                let total = try await first.statistics().totalBytes
                #expect(total <= bound, "after \(index + 1) stores: \(total) bytes")
            }
            #expect(try await second.entries(forKey: "https://api.example/11").count == 1)
            #expect(try await second.entries(forKey: "https://api.example/0").isEmpty)
            let tooLarge = entry("https://api.example/huge", body: Data(repeating: 1, count: bound + 1))
            try await first.store(tooLarge)
            #expect(try await second.entries(forKey: tooLarge.key).isEmpty)
            await first.shutdown()
            await second.shutdown()
        }
    }

    @Test func concurrentWritersOfOneKeyLeaveOneWholeEntry() async throws {
        try await withSharedPostgres { url in
            let stores = [try PostgresCacheStorage(url: url), try PostgresCacheStorage(url: url)]
            let key = "https://api.example/contended"
            let bodies = (0..<8).map { Data(repeating: UInt8($0), count: 700 * 1024 + $0) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, body) in bodies.enumerated() {
                    let storage = stores[index % 2]
                    let written = entry(key, body: body)
                    group.addTask { try await storage.store(written) }
                }
                try await group.waitForAll()
            }
            let read = try await stores[0].entries(forKey: key)
            #expect(read.count == 1)
            #expect(read.first.map { bodies.contains($0.body) } == true)
            #expect(try await stores[1].statistics().entryCount == 1)
            for storage in stores { await storage.shutdown() }
        }
    }

    @Test func aDamagedEntryIsAMissAndIsRemoved() async throws {
        try await withSharedPostgres { url in
            let storage = try PostgresCacheStorage(url: url)
            let stored = entry("https://api.example/damaged", body: Data("the original body".utf8))
            try await storage.store(stored)
            try await execute("UPDATE courier_cache_chunks SET bytes = '\\x00ff'::bytea", on: url)
            #expect(try await storage.entries(forKey: stored.key).isEmpty)
            #expect(try await storage.statistics().entryCount == 0)
            await storage.shutdown()
        }
    }

    @Test func tablesOfANewerFormatAreNamedAndNotTouched() async throws {
        try await withSharedPostgres { url in
            let storage = try PostgresCacheStorage(url: url)
            try await storage.store(entry("https://api.example/x", body: Data("x".utf8)))
            await storage.shutdown()
            try await execute("UPDATE courier_cache_schema SET version = 99", on: url)
            let reports = NIOLockedValueBox<[PostgresCacheStorage.Availability]>([])
            let later = try PostgresCacheStorage(url: url, onAvailabilityChange: { change in reports.withLockedValue { $0.append(change) } })
            let error = await #expect(throws: CourierError.self) { _ = try await later.entries(forKey: "https://api.example/x") }
            #expect(error?.kind == .cacheStorageFailed)
            #expect(error?.message.contains("newer Courier (format 99") == true)
            #expect(reports.withLockedValue { $0.count } == 1)
            await later.shutdown()
        }
    }

    @Test func aBadURLOrBoundIsAConfigurationError() throws {
        for (url, maximum) in [("https://db.example/app", 1024), ("postgres://db.example/app?pool=3", 1024), ("postgres://db.example/app", 0)] {
            let error = #expect(throws: CourierError.self) { _ = try PostgresCacheStorage(url: URL(string: url)!, maximumBytes: maximum) }
            #expect(error?.kind == .invalidConfiguration)
            #expect(error?.message.contains("cache") == true || error?.message.contains("maximumBytes") == true)
        }
    }

    @Test func aMemoryTierServesFromMemoryAndForgetsWhatAnotherProcessChanged() async throws {
        try await withSharedPostgres { url in
            let near = try PostgresCacheStorage(url: url, memoryBytes: 1 << 20)
            let far = try PostgresCacheStorage(url: url)
            let first = entry("https://api.example/tiered", body: Data("first".utf8))
            try await far.store(first)
            // Bounded: the tier keeps what it reads only once its connection listens.
            try await eventually { try await near.entries(forKey: first.key) == [first] && near.keepsInMemory(forKey: first.key) }
            // A change that notifies nobody (the body altered in place) is not seen: the read
            // comes from memory, where a read from the database would be a miss.
            try await execute("UPDATE courier_cache_chunks SET bytes = '\\x00ff'::bytea", on: url)
            #expect(try await near.entries(forKey: first.key) == [first])
            let second = entry("https://api.example/tiered", body: Data("second".utf8), age: 5)
            try await far.store(second)
            try await eventually { try await near.entries(forKey: first.key) == [second] }
            try await far.removeEntries(forKey: first.key)
            try await eventually { try await near.entries(forKey: first.key).isEmpty }
            await near.shutdown()
            await far.shutdown()
        }
    }

    @Test func anOutageFailsFastIsReportedOnceAndEndsByItself() async throws {
        try await withPostgres { cluster, url in
            let reports = NIOLockedValueBox<[PostgresCacheStorage.Availability]>([])
            let storage = try PostgresCacheStorage(url: url, onAvailabilityChange: { change in reports.withLockedValue { $0.append(change) } })
            let stored = entry("https://api.example/outage", body: Data("kept".utf8))
            try await storage.store(stored)
            try await offThePool { cluster.kill() }
            for _ in 0..<20 {
                await #expect(throws: CourierError.self) { _ = try await storage.entries(forKey: stored.key) }
            }
            #expect(reports.withLockedValue { $0 }.count == 1)
            if case .unavailable = reports.withLockedValue({ $0.first }) {} else { Issue.record("no outage reported: \(reports.withLockedValue { $0 })") }
            try await offThePool { try cluster.restart() }
            try await eventually(seconds: 60) { (try? await storage.entries(forKey: stored.key)) == [stored] }
            #expect(reports.withLockedValue { $0.last } == .available)
            #expect(reports.withLockedValue { $0.count } == 2)
            await storage.shutdown()
        }
    }

    @Test func clientsOnOneDatabaseShareHitsAndInvalidations() async throws {
        try await withServerAndSharedPostgres { server, url in
            let path = "/cacheable?key=shared-clients&cc=max-age%3D600"
            let first = try PostgresCacheStorage(url: url)
            let second = try PostgresCacheStorage(url: url)
            try await withCachingClient(server, storage: first) { one in
                try await withCachingClient(server, storage: second) { other in
                    #expect(try await one.send(CourierRequest<CourierResponse>(path: path)).source == .network)
                    #expect(try await other.send(CourierRequest<CourierResponse>(path: path)).source == .cache)
                    #expect(server.receivedRequests.filter { $0.uri == path }.count == 1)
                    _ = try await one.send(CourierRequest<CourierResponse>(method: .post, path: path, body: .text("change")))
                    #expect(try await other.send(CourierRequest<CourierResponse>(path: path)).source == .network)
                }
            }
            await first.shutdown()
            await second.shutdown()
        }
    }

    @Test func requestsGoToTheNetworkWhileTheDatabaseIsDown() async throws {
        try await withServerAndPostgres { server, cluster, url in
            let path = "/cacheable?key=down&cc=max-age%3D600"
            let reports = NIOLockedValueBox<[PostgresCacheStorage.Availability]>([])
            let storage = try PostgresCacheStorage(url: url, onAvailabilityChange: { change in reports.withLockedValue { $0.append(change) } })
            try await withCachingClient(server, storage: storage) { client in
                _ = try await client.send(CourierRequest<CourierResponse>(path: path))
                try await offThePool { cluster.kill() }
                for _ in 0..<5 {
                    let response = try await client.send(CourierRequest<CourierResponse>(path: path))
                    #expect(response.status == 200)
                    #expect(response.source == .network)
                }
                #expect(reports.withLockedValue { $0.count } == 1)
                try await offThePool { try cluster.restart() }
                try await eventually(seconds: 60) { try await client.send(CourierRequest<CourierResponse>(path: path)).source == .cache }
            }
            await storage.shutdown()
        }
    }
}

/// A client on `server` whose cache keeps its entries in `storage`, shut down after `body`.
private func withCachingClient<T>(_ server: TestServer, storage: any CacheStorage, _ body: (CourierClient) async throws -> T) async throws -> T {
    var configuration = ClientConfiguration(baseURL: server.baseURL)
    configuration.cache = CacheConfiguration(storage: storage)
    return try await CourierClient.withClient(configuration: configuration, body)
}

/// Waits until `condition` holds, trying every 50 ms; fails the test after `seconds`.
func eventually(seconds: Double = 20, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    Issue.record("the condition did not hold within \(seconds) s")
}
