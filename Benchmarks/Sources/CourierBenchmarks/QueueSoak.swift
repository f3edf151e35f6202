import Courier
import CourierQueue
import CourierQueuePostgres
import CourierTesting
import Foundation

/// The durable queue under fire: worker processes deliver records to idempotent servers while
/// the harness kills workers at random with SIGKILL (replacing each) and, with PostgreSQL,
/// restarts the database once halfway. Then it checks what the issue of a fleet's outbox asks:
/// nothing lost, each record applied once under one `Idempotency-Key`, records sent more than
/// once only when they were in flight at a kill (or at the restart), and each origin's ordered
/// records applied in the order they were written.
///
///     courier-bench --queue-soak [--requests 2000] [--kills 100] [--workers 4] [--sqlite]
struct QueueSoak {
    let records: Int
    let kills: Int
    let workers: Int
    let usesSQLite: Bool

    /// The flag a worker child process is started with, followed by the storage.
    static let workerFlag = "--queue-soak-worker"
    /// Origins the records go to, each a server of its own.
    static let origins = 4

    /// A worker child process: delivers the queue at `storage` (a `postgres://` URL or a path)
    /// with the default configuration until it is empty.
    static func work(storage: String) async throws {
        let location: QueueStorage = storage.hasPrefix("postgres") ? .postgres(URL(string: storage)!) : .sqlite(path: storage)
        try await CourierClient.withClient { client in
            var configuration = QueueConfiguration(storage: location)
            configuration.deliversOnOpen = false
            let queue = try await client.openQueue(configuration)
            let emptied = try await queue.run(deadline: .seconds(900))
            await queue.close()
            if !emptied { exit(3) }
        }
    }

    /// Runs the soak and prints what it found; `false` when a check failed.
    func run() async throws -> Bool {
        let cluster = usesSQLite ? nil : try PostgresCluster.start()
        defer { cluster?.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        let argument: String
        if let cluster {
            try cluster.createDatabase("soak")
            argument = "postgres://\(cluster.username)@\(cluster.host):\(cluster.port)/soak?sslmode=disable"
        } else {
            argument = folder.appendingPathComponent("queue.sqlite").path
        }
        let storage: QueueStorage = usesSQLite ? .sqlite(path: argument) : .postgres(URL(string: argument)!)
        let ledger = IdempotencyLedger()
        var servers: [TestServer] = []
        for _ in 0..<Self.origins { servers.append(try await TestServer.start(ledger: ledger)) }
        defer { for server in servers { Task { try? await server.shutdown() } } }

        let written = try await write(storage: storage, servers: servers)
        let started = ContinuousClock.now
        var pool = try (0..<workers).map { _ in try launchWorker(argument) }
        var held = Set<String>()
        var heldAtRestart = Set<String>()
        var killed = 0
        var restarted = false
        while killed < kills {
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...150)))
            let left = try await inFlightOrWaiting(storage)
            if left.waiting == 0 { break }
            if let cluster, !restarted, killed == kills / 2 {
                heldAtRestart = left.inFlight
                cluster.kill()
                try cluster.restart()
                restarted = true
            }
            let index = Int.random(in: 0..<pool.count)
            let victim = pool[index]
            _ = kill(victim.processIdentifier, SIGSTOP)
            held.formUnion(try await heldBy(victim.processIdentifier, in: storage))
            _ = kill(victim.processIdentifier, SIGKILL)
            victim.waitUntilExit()
            killed += 1
            pool[index] = try launchWorker(argument)
        }
        var exits: [Int32] = []
        for worker in pool {
            for _ in 0..<6_000 where worker.isRunning { try await Task.sleep(for: .milliseconds(100)) }
            if worker.isRunning { _ = kill(worker.processIdentifier, SIGKILL) }
            worker.waitUntilExit()
            exits.append(worker.terminationStatus)
        }
        let elapsed = ContinuousClock.now - started
        return try await report(
            written: written, storage: storage, ledger: ledger, held: held, heldAtRestart: heldAtRestart, killed: killed,
            restarted: restarted, exits: exits, elapsed: elapsed
        )
    }

    /// Writes the records, one in three ordered, spread over the origins; returns each origin's
    /// ordered records' paths, in the order written.
    private func write(storage: QueueStorage, servers: [TestServer]) async throws -> [[String]] {
        var ordered = [[String]](repeating: [], count: servers.count)
        try await CourierClient.withClient { client in
            var configuration = QueueConfiguration(storage: storage)
            configuration.deliversOnOpen = false
            configuration.maximumRecords = records
            let producer = try await client.openQueue(configuration)
            for index in 0..<records {
                let origin = index % servers.count
                let isOrdered = index % 3 == 0
                let path = "/idempotent/\(isOrdered ? "o" : "u")\(origin)-\(index)"
                let url = servers[origin].url(path + "?delay=0.15").absoluteString
                _ = try await producer.enqueue(CourierRequest<Void>(method: .post, path: url, body: .text("soak")), isOrdered: isOrdered)
                if isOrdered { ordered[origin].append(path) }
            }
            await producer.close()
        }
        return ordered
    }

    private func launchWorker(_ storage: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = [Self.workerFlag, storage]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Every record, read again while the storage restarts (for up to a minute).
    private func readRecords(_ storage: QueueStorage) async throws -> [QueueRecord] {
        var attempt = 0
        while true {
            do {
                return try await CourierClient.withClient { client in
                    var configuration = QueueConfiguration(storage: storage)
                    configuration.deliversOnOpen = false
                    let queue = try await client.openQueue(configuration)
                    do {
                        let records = try await queue.records()
                        await queue.close()
                        return records
                    } catch {
                        await queue.close()
                        throw error
                    }
                }
            } catch let error as CourierError where error.kind == .queueStorage && attempt < 60 {
                attempt += 1
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func inFlightOrWaiting(_ storage: QueueStorage) async throws -> (waiting: Int, inFlight: Set<String>) {
        let records = try await readRecords(storage)
        let active = records.filter { !$0.state.isFinal }
        return (active.count, Set(active.filter { $0.state == .inFlight }.map(\.request.idempotencyKey)))
    }

    /// The keys of the records the process `pid` holds in flight.
    private func heldBy(_ pid: Int32, in storage: QueueStorage) async throws -> Set<String> {
        let records = try await readRecords(storage)
        return Set(
            records.filter { $0.state == .inFlight && $0.lease?.holder.split(separator: "/").dropFirst().first == Substring("\(pid)") }
                .map(\.request.idempotencyKey)
        )
    }

    private func report(
        written: [[String]], storage: QueueStorage, ledger: IdempotencyLedger, held: Set<String>, heldAtRestart: Set<String>,
        killed: Int, restarted: Bool, exits: [Int32], elapsed: Duration
    ) async throws -> Bool {
        let records = try await readRecords(storage)
        let entries = ledger.entries
        let lost = records.filter { $0.state != .delivered }.count + max(0, self.records - records.count)
        let keys = Set(records.map(\.request.idempotencyKey))
        let unknown = Set(entries.keys).subtracting(keys).count
        let appliedTwice = entries.values.filter { $0.applied > 1 }.count
        let neverApplied = keys.filter { (entries[$0]?.applied ?? 0) == 0 }.count
        let repeated = Set(entries.filter { $0.value.requests > 1 }.keys)
        let unexplained = repeated.subtracting(held).subtracting(heldAtRestart)
        let appliedOrder = ledger.appliedKeys.compactMap { entries[$0]?.path }
        var outOfOrder = 0
        for (origin, paths) in written.enumerated() {
            let applied = appliedOrder.filter { $0.hasPrefix("/idempotent/o\(origin)-") }
            if applied != paths { outOfOrder += 1 }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("\nDurable queue soak in \(usesSQLite ? "one SQLite file" : "PostgreSQL"): \(self.records) records, \(workers) worker processes")
        print("  workers killed (SIGKILL):            \(killed)\(restarted ? ", and PostgreSQL restarted once" : "")")
        print("  seconds until the queue was empty:   \(String(format: "%.1f", seconds))")
        print("  records not delivered (lost):        \(lost)")
        print("  records never applied by the server: \(neverApplied)")
        print("  records applied more than once:      \(appliedTwice)")
        print("  requests with an unknown key:        \(unknown)")
        print("  records sent more than once:         \(repeated.count) (in flight at a kill: \(held.count) records)")
        print("  ... of which not in flight at a kill or the restart: \(unexplained.count)")
        print("  origins whose ordered records were applied out of order: \(outOfOrder) of \(written.count)")
        print("  workers that ended with a failure:   \(exits.filter { $0 != 0 }.count)")
        return lost == 0 && neverApplied == 0 && appliedTwice == 0 && unknown == 0 && unexplained.isEmpty && outOfOrder == 0
            && exits.allSatisfy { $0 == 0 }
    }
}
