import Courier
import CourierCachePostgres
import Foundation

/// The HTTP cache: hit latency from memory, from disk and from PostgreSQL (a throwaway server on
/// loopback) against a network fetch of the same 10 KiB response, throughput of many GETs of a
/// few URLs with each store and with none, and the peak memory of a client with a 64 MiB memory
/// store after 1 GiB of responses.
struct CacheBenchmark {
    let server: ServerProcess
    let rounds: Int

    /// Sequential requests per round of each latency measurement.
    static let latencyRequests = 500
    /// The size of the response whose latency is measured.
    static let responseBytes = 10 * 1024

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        try cluster.createDatabase("cache")
        let database = URL(string: "postgres://\(cluster.username)@\(cluster.host):\(cluster.port)/cache?sslmode=disable")!
        try await latencies(folder: folder, database: database)
        try await throughput(requests: 10_000, urls: 100, concurrency: 16, folder: folder, database: database)
        try largeEntries(folder: folder, database: database)
        try peakMemory()
    }

    /// A client whose responses without caching fields stay fresh for an hour, on `storage`
    /// (no cache for `nil`).
    static func client(storage: (any CacheStorage)?, connections: Int = 1) -> CourierClient {
        var configuration = ClientConfiguration()
        configuration.decompression = .disabled
        configuration.limits.maximumConnectionsPerHost = connections
        configuration.limits.maximumConcurrentRequestsPerHost = connections
        if let storage {
            var cache = CacheConfiguration(storage: storage)
            cache.policy.defaultFreshness = .seconds(3600)
            configuration.cache = cache
        }
        return CourierClient(configuration: configuration)
    }

    // MARK: Latency

    private func latencies(folder: URL, database: URL) async throws {
        let url = server.url("/bytes/\(Self.responseBytes)?seed=3")
        let contenders: [(String, CourierClient)] = [
            ("network fetch (no cache)", Self.client(storage: nil)),
            ("memory hit (MemoryCacheStorage)", Self.client(storage: MemoryCacheStorage())),
            ("disk hit (DiskCacheStorage)", Self.client(storage: try DiskCacheStorage(directory: folder))),
            ("PostgreSQL hit (PostgresCacheStorage)", Self.client(storage: try PostgresCacheStorage(url: database))),
            (
                "PostgreSQL hit, 16 MiB memory tier (memoryBytes set)",
                Self.client(storage: try PostgresCacheStorage(url: database, memoryBytes: 16 << 20))
            ),
        ]
        var samples: [String: [Sample]] = [:]
        for round in 0...rounds {  // round 0 warms up, and fills the caches
            for (name, client) in contenders {
                let mustHit = round > 0 && name.contains("hit")
                let sample = try await measure(requests: Self.latencyRequests) {
                    for _ in 0..<Self.latencyRequests {
                        let response = try await client.response(for: CourierRequest<CourierResponse>(path: url.absoluteString))
                        guard response.body.count == Self.responseBytes else { throw HarnessError("\(name): a body of \(response.body.count) bytes") }
                        if mustHit, response.source != .cache {
                            throw HarnessError("\(name): a response from the \(response.source), not the cache")
                        }
                    }
                }
                if round > 0 { samples[name, default: []].append(sample) }
            }
        }
        for (_, client) in contenders { try await client.shutdown() }
        func latency(_ name: String) -> Double { median((samples[name] ?? []).map { $0.wallSeconds * 1e6 / Double($0.requests) }) }
        let network = latency(contenders[0].0)
        print("\nlatency of one GET of a \(Self.responseBytes / 1024) KiB response, sequential, \(Self.latencyRequests) per round, median of \(rounds) rounds:")
        print("| contender | µs/request | faster than the network | CPU µs/request |")
        print("|---|---|---|---|")
        for (name, _) in contenders {
            let value = latency(name)
            let cpu = median((samples[name] ?? []).map(\.cpuMicrosecondsPerRequest))
            print("| \(name) | \(format(value)) | \(format(network / value))× | \(format(cpu)) |")
        }
    }

    // MARK: Throughput

    private func throughput(requests: Int, urls: Int, concurrency: Int, folder: URL, database: URL) async throws {
        let targets = (0..<urls).map { server.url("/bytes/\(Self.responseBytes)?seed=\($0)").absoluteString }
        let stores: [(name: String, make: (Int) throws -> (any CacheStorage)?)] = [
            ("MemoryCacheStorage", { _ in MemoryCacheStorage() }),
            ("DiskCacheStorage", { round in try DiskCacheStorage(directory: folder.appendingPathComponent("throughput-\(round)")) }),
            ("PostgresCacheStorage", { _ in try PostgresCacheStorage(url: database) }),
            ("none", { _ in nil }),
        ]
        var samples: [String: [Sample]] = [:]
        for round in 0...rounds {
            for store in stores {
                // A new client and an empty store each round: the first request for each URL
                // goes to the network.
                let storage = try store.make(round)
                try await storage?.removeAll()
                let client = Self.client(storage: storage, connections: concurrency)
                let sample = try await measure(requests: requests) {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for worker in 0..<concurrency {
                            group.addTask {
                                for index in stride(from: worker, to: requests, by: concurrency) {
                                    _ = try await client.send(CourierRequest<Data>(path: targets[index % urls]))
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                }
                try await client.shutdown()
                if let storage = storage as? PostgresCacheStorage { await storage.shutdown() }
                if round > 0 { samples[store.name, default: []].append(sample) }
            }
        }
        let off = median((samples["none"] ?? []).map(\.requestsPerSecond))
        print("\n\(requests) GETs of \(urls) distinct \(Self.responseBytes / 1024) KiB URLs, \(concurrency) at a time, a new client and an empty store per round, median of \(rounds) rounds:")
        print("| cache | req/s | CPU µs/request (this process) | against no cache |")
        print("|---|---|---|---|")
        for store in stores {
            let rate = median((samples[store.name] ?? []).map(\.requestsPerSecond))
            let cpu = median((samples[store.name] ?? []).map(\.cpuMicrosecondsPerRequest))
            print("| \(store.name) | \(format(rate)) | \(format(cpu)) | \(format(rate / off))× |")
        }
    }

    // MARK: Large entries

    /// The large entries each child stores and reads back.
    static let largeEntryCount = 4
    /// Their size: 16 MiB.
    static let largeEntryBytes = 16 << 20

    /// Runs child processes that store and read back 16 MiB entries in a store, and reports
    /// their wall time, CPU and peak resident set: what a store costs per large entry, and
    /// whether its memory stays near one entry.
    private func largeEntries(folder: URL, database: URL) throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).path
        let stores = [("DiskCacheStorage", folder.appendingPathComponent("large").path), ("PostgresCacheStorage", database.absoluteString)]
        var runs: [String: [ChildRun]] = [:]
        for round in 0...rounds {
            for (name, location) in stores {
                let run = try ChildRun.run([executable, "--cache-large-child", name, location])
                guard run.exitStatus == 0 else { throw HarnessError("the large-entry child for \(name) exited with status \(run.exitStatus)") }
                if round > 0 { runs[name, default: []].append(run) }
            }
        }
        let count = Self.largeEntryCount
        print("\n\(count) entries of \(Self.largeEntryBytes >> 20) MiB stored, then read back and checked, by a process of their own, median of \(rounds) rounds:")
        print("| store | wall ms per entry (store + read) | CPU ms per entry | peak RSS MiB |")
        print("|---|---|---|---|")
        for (name, _) in stores {
            let all = runs[name] ?? []
            let wall = median(all.map(\.wallSeconds)) * 1000 / Double(count)
            let cpu = median(all.map(\.cpuSeconds)) * 1000 / Double(count)
            print("| \(name) | \(format(wall)) | \(format(cpu)) | \(format(median(all.map(\.peakMiB)))) |")
        }
    }

    /// Child side: stores ``largeEntryCount`` entries of ``largeEntryBytes`` in the store named
    /// `name` at `location` (a folder, or a `postgres://` URL), one at a time, reads each back
    /// and checks it, then empties the store; exits 1 when an entry does not come back whole.
    static func storeLargeEntries(name: String, location: String) async throws {
        let storage: any CacheStorage =
            name == "PostgresCacheStorage"
            ? try PostgresCacheStorage(url: URL(string: location)!)
            : try DiskCacheStorage(directory: URL(fileURLWithPath: location))
        // SplitMix64: bytes that do not compress, without a system call for each eight.
        var state = UInt64(truncatingIfNeeded: Date().timeIntervalSince1970.bitPattern)
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
        for index in 0..<largeEntryCount {
            var body = Data(count: largeEntryBytes)
            body.withUnsafeMutableBytes { raw in
                for index in raw.bindMemory(to: UInt64.self).indices { raw.storeBytes(of: next(), toByteOffset: index * 8, as: UInt64.self) }
            }
            let entry = CourierCacheEntry(
                key: "https://large.example/\(index)", status: 200, headers: ["Content-Type": "application/octet-stream"], body: body,
                requestDate: Date(), responseDate: Date()
            )
            try await storage.store(entry)
            guard try await storage.entries(forKey: entry.key).first?.body == body else { exit(1) }
        }
        try await storage.removeAll()
        if let database = storage as? PostgresCacheStorage { await database.shutdown() }
    }

    // MARK: Peak memory

    /// Runs child processes that store `count` distinct 1 MiB responses through a 64 MiB
    /// memory store, and reports each one's peak resident set.
    private func peakMemory() throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).path
        print("\npeak resident set of a process storing N distinct 1 MiB responses in MemoryCacheStorage(maximumBytes: 64 MiB):")
        print("| responses stored | bytes received | peak RSS MiB |")
        print("|---|---|---|")
        for count in [0, 64, 1024] {
            let run = try ChildRun.run([executable, "--cache-memory-child", String(server.port), String(count)])
            guard run.exitStatus == 0 else { throw HarnessError("the memory child exited with status \(run.exitStatus)") }
            print("| \(count) | \(count) MiB | \(format(run.peakMiB)) |")
        }
    }

    /// Child side: stores `count` distinct 1 MiB responses from the server on `port`, one at a
    /// time, through a 64 MiB memory store; exits 1 if the store holds more than its limit.
    static func storeResponses(port: Int, count: Int) async throws {
        let storage = MemoryCacheStorage(maximumBytes: 64 << 20)
        let client = client(storage: storage)
        for index in 0..<count {
            let url = "http://127.0.0.1:\(port)/bytes/\(1 << 20)?seed=\(index)"
            _ = try await client.send(CourierRequest<Data>(path: url))
        }
        try await client.shutdown()
        let held = try await storage.statistics().totalBytes
        if held > 64 << 20 { exit(1) }
    }

    private func format(_ value: Double) -> String { String(format: value >= 100 ? "%.0f" : "%.1f", value) }
}
