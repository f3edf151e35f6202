import Courier
import CourierQueue
import CourierQueuePostgres
import Foundation
import Logging
import PostgresNIO

/// The durable queue in PostgreSQL, against a throwaway server started here: records per
/// second delivered by one worker and by four against a server that answers in 20 ms, and the
/// time an enqueue takes inside an application's transaction, beside one outside and one into
/// SQLite.
struct QueueWorkersBenchmark {
    let server: ServerProcess
    let records: Int
    let rounds: Int
    /// Which contenders run (`--only`); the enqueue timings run whenever the first does.
    var selects: (String) -> Bool = { _ in true }

    /// A way of delivering: how many workers, and how many records each sends at once
    /// (`nil`: the default of ``QueueConfiguration/maximumConcurrentDeliveries``).
    struct Contender {
        let name: String
        let workers: Int
        let concurrency: Int?
    }

    static let contenders = [
        Contender(name: "1 worker (default: 32 at once)", workers: 1, concurrency: nil),
        Contender(name: "4 workers (default: 32 at once each)", workers: 4, concurrency: nil),
        Contender(name: "1 worker, maximumConcurrentDeliveries = 4", workers: 1, concurrency: 4),
        Contender(name: "4 workers, maximumConcurrentDeliveries = 4", workers: 4, concurrency: 4),
    ]

    func run() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        var rates = [String: [Double]]()
        var inTransaction: [Double] = []
        var outside: [Double] = []
        var sqlite: [Double] = []
        for round in 0...rounds {
            for (index, contender) in Self.contenders.enumerated() where selects(contender.name) {
                let database = "deliver_\(round)_\(index)"
                try cluster.createDatabase(database)
                let rate = try await deliver(contender, url: url(cluster, database), round: round)
                if round > 0 { rates[contender.name, default: []].append(rate) }
            }
            guard selects(Self.contenders[0].name) else { continue }
            let database = "enqueue_\(round)"
            try cluster.createDatabase(database)
            let (transaction, plain) = try await enqueueTimes(cluster: cluster, database: database)
            let file = try await sqliteEnqueueTimes()
            if round > 0 {
                inTransaction.append(median(transaction))
                outside.append(median(plain))
                sqlite.append(median(file))
            }
        }
        print("\nDurable queue in PostgreSQL, \(records) unordered POSTs answered in 20 ms, medians of \(rounds) rounds:")
        let base = median(rates[Self.contenders[0].name] ?? [])
        let limitedBase = median(rates[Self.contenders[2].name] ?? [])
        for (index, contender) in Self.contenders.enumerated() where rates[contender.name] != nil {
            let rate = median(rates[contender.name] ?? [])
            let ratio = rate / (index < 2 ? base : limitedBase)
            print("  \(contender.name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(String(format: "%6.0f", rate)) records/s (\(String(format: "%.2f", ratio))×)")
        }
        guard !inTransaction.isEmpty else { return }
        print("  enqueue inside an application transaction: \(String(format: "%.0f", median(inTransaction))) µs median")
        print("  enqueue on its own (PostgreSQL):           \(String(format: "%.0f", median(outside))) µs median")
        print("  enqueue on its own (SQLite, for reference): \(String(format: "%.0f", median(sqlite))) µs median")
    }

    private func url(_ cluster: PostgresCluster, _ database: String) -> URL {
        URL(string: "postgres://\(cluster.username)@\(cluster.host):\(cluster.port)/\(database)?sslmode=disable")!
    }

    /// Writes the records with one producer, then times `contender`'s workers, each with a
    /// client of its own (default configuration), until the queue is empty.
    private func deliver(_ contender: Contender, url: URL, round: Int) async throws -> Double {
        try await CourierClient.withClient { producerClient in
            var producerConfiguration = QueueConfiguration(storage: .postgres(url))
            producerConfiguration.deliversOnOpen = false
            producerConfiguration.maximumRecords = records
            let producer = try await producerClient.openQueue(producerConfiguration)
            for index in 0..<records {
                let path = server.url("/idempotent/\(contender.workers)-\(round)-\(index)?delay=0.02").absoluteString
                _ = try await producer.enqueue(CourierRequest<Void>(method: .post, path: path, body: .text("x")), isOrdered: false)
            }
            await producer.close()
        }
        let clients = (0..<contender.workers).map { _ in CourierClient(configuration: ClientConfiguration()) }
        var queues: [DurableQueue] = []
        for client in clients {
            var configuration = QueueConfiguration(storage: .postgres(url))
            configuration.deliversOnOpen = false
            if let concurrency = contender.concurrency { configuration.maximumConcurrentDeliveries = concurrency }
            queues.append(try await client.openQueue(configuration))
        }
        let start = ContinuousClock.now
        let emptied = try await withThrowingTaskGroup(of: Bool.self) { group in
            for queue in queues { group.addTask { try await queue.run(deadline: .seconds(600)) } }
            var all = true
            for try await done in group { all = all && done }
            return all
        }
        let elapsed = ContinuousClock.now - start
        for queue in queues { await queue.close() }
        for client in clients { try await client.shutdown() }
        guard emptied else { throw HarnessError("the workers did not empty the queue") }
        return Double(records) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Microseconds per `enqueue`: on an application connection inside its open transaction
    /// (which also writes a row of its own and commits), and through the queue's own pool.
    private func enqueueTimes(cluster: PostgresCluster, database: String) async throws -> (transaction: [Double], plain: [Double]) {
        let logger = Logger(label: "courier.bench.postgres")
        let postgres = PostgresClient(
            configuration: .init(host: cluster.host, port: cluster.port, username: cluster.username, password: nil, database: database, tls: .disable),
            backgroundLogger: logger
        )
        return try await CourierClient.withClient { client in
            var configuration = QueueConfiguration(storage: .postgres(url(cluster, database)))
            configuration.deliversOnOpen = false
            configuration.maximumRecords = 100_000
            let queue = try await client.openQueue(configuration)
            let times = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await postgres.run() }
                defer { group.cancelAll() }
                try await postgres.query("CREATE TABLE orders (id bigint PRIMARY KEY)", logger: logger)
                var transaction: [Double] = []
                var plain: [Double] = []
                for index in 0..<500 {
                    let request = CourierRequest<Void>(method: .post, path: server.url("/idempotent/t\(index)").absoluteString, body: .text("x"))
                    let spent = try await postgres.withTransaction(logger: logger) { connection in
                        try await connection.query("INSERT INTO orders (id) VALUES (\(index))", logger: logger)
                        let start = ContinuousClock.now
                        _ = try await queue.enqueue(request, in: connection)
                        return ContinuousClock.now - start
                    }
                    transaction.append(microseconds(spent))
                    let start = ContinuousClock.now
                    _ = try await queue.enqueue(request)
                    plain.append(microseconds(ContinuousClock.now - start))
                }
                return (transaction, plain)
            }
            await queue.close()
            return times
        }
    }

    /// Microseconds per `enqueue` into an SQLite file.
    private func sqliteEnqueueTimes() async throws -> [Double] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-workers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await CourierClient.withClient { client in
            var configuration = QueueConfiguration(path: folder.appendingPathComponent("queue.sqlite").path)
            configuration.deliversOnOpen = false
            let queue = try await client.openQueue(configuration)
            var times: [Double] = []
            for index in 0..<500 {
                let request = CourierRequest<Void>(method: .post, path: server.url("/idempotent/s\(index)").absoluteString, body: .text("x"))
                let start = ContinuousClock.now
                _ = try await queue.enqueue(request)
                times.append(microseconds(ContinuousClock.now - start))
            }
            await queue.close()
            return times
        }
    }

    private func microseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    }
}
