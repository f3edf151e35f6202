import Courier
import CourierPostgres
import CourierTesting
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import CourierQueue
@testable import CourierQueuePostgres

/// Where a test is, on stderr.
func trace(_ step: String) {
    FileHandle.standardError.write(Data("[\(Date())] \(step)\n".utf8))
}

@Suite("Durable queue in PostgreSQL", .timeLimit(.minutes(3)))
struct PostgresQueueTests {
    static let logger = Logger(label: "courier.test.postgres")

    /// Opens the store at `url` directly, runs `body`, and closes it.
    static func withStore<T>(_ url: URL, _ body: (PostgresQueueStore) async throws -> T) async throws -> T {
        let store = try await PostgresQueueStore.open(try PostgresLocation(url, purpose: "queue"), logger: logger)
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }

    @Test func twoWorkersShareTheDatabaseAndSendEachRecordOnce() async throws {
        try await withServerAndPostgres { server, _, url in
            try await QueueWorkerScenarios.workersShareTheQueue(.postgres(url), server: server)
        }
    }

    @Test func aClaimTakesOnlyWhatMayLeaveNow() async throws {
        try await withPostgres { _, url in
            try await QueueWorkerScenarios.aClaimTakesOnlyWhatMayLeaveNow(.postgres(url))
        }
    }

    @Test func aBusyWorkerStillFillsAFreeSlot() async throws {
        try await withServerAndPostgres { server, _, url in
            try await QueueWorkerScenarios.aBusyWorkerStillFillsAFreeSlot(.postgres(url), server: server)
        }
    }

    @Test func onlyChangesThatGiveWorkNotifyTheOtherWorkers() async throws {
        try await withPostgres { _, url in
            try await Self.withStore(url) { store in try await Self.expectOnlyChangesThatGiveWorkToNotify(store, url: url, id: "r1") }
        }
    }

    /// Listens on the queue's channel beside `store` and checks which of its writes notify:
    /// an enqueue and a settle do; a claim and a lease renewal do not. A marker notified after
    /// a write comes first unless that write notified too, since notifications arrive in the
    /// order their transactions committed.
    static func expectOnlyChangesThatGiveWorkToNotify(_ store: PostgresQueueStore, url: URL, id: String) async throws {
        let connection = try await PostgresConnection.connect(configuration: try PostgresLocation(url, purpose: "queue").connectionConfiguration(), id: 1, logger: logger)
        do {
            try await connection.listen(on: PostgresQueueStore.channel) { notifications in
                var payloads = notifications.map(\.payload).makeAsyncIterator()
                let request = QueuedRequest(method: .post, url: URL(string: "http://127.0.0.1:9/\(id)")!)
                _ = try await store.insert(request, id: id, now: Date(), expiresAt: nil, maximumRecords: 10)
                #expect(try await payloads.next() == "")
                let lease = QueueLease(holder: "worker-a", expiresAt: Date().addingTimeInterval(60))
                let claimed = try await store.claim(limit: 1, lease: lease, now: Date(), goneHolders: [], sending: [], skippingOrigins: [])
                #expect(claimed.map(\.id) == [id])
                try await store.renew([id], holder: lease.holder, expiresAt: Date().addingTimeInterval(120))
                _ = try await store.run("NOTIFY courier_queue, 'claimed and renewed'", action: "changed")
                #expect(try await payloads.next() == "claimed and renewed")
                let record = try #require(claimed.first)
                let settled = try await store.settle(record, holder: lease.holder, state: .delivered, outcome: nil, nextAttemptAt: nil, countsAttempt: true)
                #expect(settled?.state == .delivered)
                #expect(try await payloads.next() == "")
            }
        } catch {
            await closeAndWait(connection)
            throw error
        }
        await closeAndWait(connection)
    }

    @Test func aLeaseOfAnotherHostIsWaitedOutThenTakenOver() async throws {
        try await withServerAndPostgres { server, _, url in
            try await QueueWorkerScenarios.aLeaseIsWaitedOutThenTakenOver(.postgres(url), server: server) { id, lease in
                let claimed = try await Self.withStore(url) { store in
                    try await store.claim(limit: 1, lease: lease, now: Date(), goneHolders: [], sending: [], skippingOrigins: [])
                }
                #expect(claimed.map(\.id) == [id])
            }
        }
    }

    @Test func aRequestEnqueuedInATransactionIsSentOnlyWhenItCommits() async throws {
        try await withServerAndPostgres { server, cluster, url in
            try await CourierClient.withClient { client in
                let queue = try await client.openQueue(QueueWorkerScenarios.configuration(.postgres(url)))
                let events = await queue.events()
                let postgres = PostgresClient(
                    configuration: .init(host: cluster.host, port: cluster.port, username: cluster.username, password: nil, database: "courier", tls: .disable),
                    backgroundLogger: Self.logger
                )
                let outcome = try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await postgres.run() }
                    defer { group.cancelAll() }
                    try await postgres.query("CREATE TABLE orders (id text PRIMARY KEY, paid boolean NOT NULL)", logger: Self.logger)
                    // Rolled back: neither the order nor the request is kept.
                    struct Abandoned: Error {}
                    var rolledBack: DurableRequestHandle?
                    await #expect(throws: PostgresTransactionError.self) {
                        try await postgres.withTransaction(logger: Self.logger) { connection in
                            try await connection.query("INSERT INTO orders VALUES ('o1', true)", logger: Self.logger)
                            let path = server.url("/idempotent/o1").absoluteString
                            rolledBack = try await queue.enqueue(CourierRequest<Void>(method: .post, path: path), in: connection)
                            throw Abandoned()
                        }
                    }
                    // Committed: both are kept, and the request is sent.
                    let handle = try await postgres.withTransaction(logger: Self.logger) { connection in
                        try await connection.query("INSERT INTO orders VALUES ('o2', true)", logger: Self.logger)
                        let path = server.url("/idempotent/o2").absoluteString
                        return try await queue.enqueue(CourierRequest<Void>(method: .post, path: path, body: .text("o2")), in: connection)
                    }
                    let record = try await handle.outcome()
                    let orders = try await postgres.query("SELECT id FROM orders", logger: Self.logger).collect().map { try $0.decode(String.self) }
                    #expect(orders == ["o2"])
                    let gone = try #require(rolledBack)
                    await #expect(throws: CourierError.self) { try await gone.outcome() }
                    return record
                }
                #expect(outcome.state == .delivered)
                #expect(try await queue.records().map(\.id) == [outcome.id])
                #expect(server.ledger.entries.values.map(\.path) == ["/idempotent/o2"])
                await queue.close()
                var queued = 0
                for await event in events {
                    if case .queued = event { queued += 1 }
                }
                #expect(queued == 2)
            }
        }
    }

    @Test func anSQLiteQueueRefusesAnEnqueueInAPostgresTransaction() async throws {
        try await withPostgres { cluster, _ in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-queue-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            try await CourierClient.withClient { client in
                let queue = try await client.openQueue(QueueWorkerScenarios.configuration(.sqlite(path: folder.appendingPathComponent("q.sqlite").path)))
                let connection = try await PostgresConnection.connect(
                    configuration: .init(host: cluster.host, port: cluster.port, username: cluster.username, password: nil, database: "courier", tls: .disable),
                    id: 1, logger: Self.logger
                )
                let error = await #expect(throws: CourierError.self) {
                    try await queue.enqueue(CourierRequest<Void>(method: .post, path: "http://127.0.0.1:9/x"), in: connection)
                }
                #expect(error?.kind == .invalidState)
                try await connection.close()
                await queue.close()
            }
        }
    }

    @Test func workersOpeningTogetherCreateTheTablesOnceAndANewerFormatIsRefused() async throws {
        try await withPostgres { _, url in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await Self.withStore(url) { _ in } }
                }
                try await group.waitForAll()
            }
            try await Self.withStore(url) { store in
                let versions = try await store.run("SELECT version FROM courier_queue_schema", action: "read").map { try $0.decode(Int.self) }
                #expect(versions == [PostgresQueueStore.schemaVersion])
                _ = try await store.run("UPDATE courier_queue_schema SET version = 99", action: "changed")
            }
            let error = await #expect(throws: CourierError.self) { try await Self.withStore(url) { _ in } }
            #expect(error?.kind == .queueStorage)
            #expect(error?.message.contains("newer Courier") == true)
        }
    }

    @Test func tablesOfTheFirstFormatAreMigratedAndTheirRecordsKept() async throws {
        try await withServerAndPostgres { server, _, url in
            let written = try await Self.withStore(url) { store in
                // The tables as the first format made them.
                _ = try await store.run("DROP TABLE courier_queue", action: "changed")
                _ = try await store.run("DROP FUNCTION courier_queue_notify()", action: "changed")
                for statement in PostgresQueueStore.migrations[0] { _ = try await store.run(PostgresQuery(unsafeSQL: statement), action: "changed") }
                _ = try await store.run("UPDATE courier_queue_schema SET version = 1", action: "changed")
                let request = QueuedRequest(method: .post, url: server.url("/idempotent/first-format"))
                return try await store.insert(request, id: "first-format", now: Date(), expiresAt: nil, maximumRecords: 10)
            }
            let (indexes, triggers) = try await Self.withStore(url) { store in
                let versions = try await store.run("SELECT version FROM courier_queue_schema", action: "read").map { try $0.decode(Int.self) }
                #expect(versions == [PostgresQueueStore.schemaVersion])
                let indexes = try await store.run("SELECT indexname FROM pg_indexes WHERE tablename = 'courier_queue'", action: "read")
                let triggers = try await store.run(
                    "SELECT tgname FROM pg_trigger WHERE tgrelid = 'courier_queue'::regclass AND NOT tgisinternal ORDER BY tgname", action: "read"
                )
                return (try indexes.map { try $0.decode(String.self) }, try triggers.map { try $0.decode(String.self) })
            }
            #expect(indexes.contains("courier_queue_due"))
            #expect(triggers == ["courier_queue_moved", "courier_queue_written"])
            let record = try await CourierClient.withClient { client in
                let queue = try await client.openQueue(QueueWorkerScenarios.configuration(.postgres(url)))
                let record = try await DurableRequestHandle(record: written, queue: queue).outcome()
                await queue.close()
                return record
            }
            #expect(record.state == .delivered)
            try await Self.withStore(url) { store in try await Self.expectOnlyChangesThatGiveWorkToNotify(store, url: url, id: "after-migration") }
        }
    }

    @Test func aServerThatIsNotThereIsATypedErrorAndAPasswordIsNeverShown() async throws {
        let port = try ReservedPort()
        let url = URL(string: "postgres://app:s3cret@127.0.0.1:\(port.port)/db?sslmode=disable")!
        try await CourierClient.withClient { client in
            let error = await #expect(throws: CourierError.self) { try await client.openQueue(QueueConfiguration(storage: .postgres(url))) }
            #expect(error?.kind == .queueStorage)
            #expect(error?.message.contains("s3cret") == false)
            #expect(QueueStorage.postgres(url).description == "postgres://app@127.0.0.1:\(port.port)/db")
        }
        #expect(try PostgresLocation(URL(string: "postgres://db.example/app")!, purpose: "queue").connectTimeout == .seconds(15))
        #expect(try PostgresLocation(URL(string: "postgres://db.example/app?connect_timeout=90&sslmode=require")!, purpose: "queue").connectTimeout == .seconds(90))
        for bad in [
            "https://db.example/app", "postgres:///app", "postgres://db.example:70000/app", "postgres://db.example/app?sslmode=sometimes",
            "postgres://db.example/app?connect_timeout=0", "postgres://db.example/app?connect_timeout=3601", "postgres://db.example/app?connect_timeout=soon",
            "postgres://db.example/app?connect_timeout", "postgres://db.example/app?application_name=x",
        ] {
            let error = #expect(throws: CourierError.self) { _ = try PostgresLocation(URL(string: bad)!, purpose: "queue") }
            #expect(error?.kind == .invalidConfiguration)
        }
    }

    @Test func aServerThatNeverAnswersIsATypedErrorWithinConnectTimeout() async throws {
        let silent = try ReservedPort(isListening: true)
        let url = URL(string: "postgres://app@127.0.0.1:\(silent.port)/db?sslmode=disable&connect_timeout=1")!
        try await CourierClient.withClient { client in
            let error = await #expect(throws: CourierError.self) { try await client.openQueue(QueueConfiguration(storage: .postgres(url))) }
            #expect(error?.kind == .queueStorage)
            #expect(error?.message.contains("within 1.0 seconds") == true, "\(String(describing: error))")
            #expect(error?.message.contains("connect_timeout") == true)
        }
    }

    /// A server that answers the login and then holds the migration behind another session's
    /// lock: opening ends with a typed error at its deadline, and the abandoned attempt holds
    /// nothing once the lock is free, so the next opening succeeds.
    @Test func aMigrationHeldBehindAnotherSessionsLockEndsAtConnectTimeout() async throws {
        try await withPostgres { _, url in
            let holder = try await PostgresConnection.connect(configuration: try PostgresLocation(url, purpose: "queue").connectionConfiguration(), id: 1, logger: Self.logger)
            do {
                _ = try await holder.query("SELECT pg_advisory_lock(\(PostgresQueueStore.migrationLock))", logger: Self.logger).collect()
                let impatient = URL(string: url.absoluteString.replacingOccurrences(of: "connect_timeout=120", with: "connect_timeout=2"))!
                try await CourierClient.withClient { client in
                    let error = await #expect(throws: CourierError.self) { try await client.openQueue(QueueConfiguration(storage: .postgres(impatient))) }
                    #expect(error?.kind == .queueStorage)
                    #expect(error?.message.contains("within 2.0 seconds") == true, "\(String(describing: error))")
                    #expect(error?.message.contains("connect_timeout") == true)
                }
                _ = try await holder.query("SELECT pg_advisory_unlock(\(PostgresQueueStore.migrationLock))", logger: Self.logger).collect()
                try await holder.close()
            } catch {
                try? await holder.close()
                throw error
            }
            try await Self.withStore(url) { store in
                let version = try await store.run("SELECT max(version) FROM courier_queue_schema", action: "read").first?.decode(Int.self)
                #expect(version == PostgresQueueStore.migrations.count)
            }
        }
    }

    /// Tables already at this version need no migration, so opening them does not wait for
    /// the lock: a worker stopped while it held it (paused, or in the middle of its own
    /// opening) cannot hold every other worker's opening.
    @Test func tablesAtThisVersionOpenWhileAnotherSessionHoldsTheMigrationLock() async throws {
        try await withPostgres { _, url in
            try await Self.withStore(url) { _ in }
            let holder = try await PostgresConnection.connect(configuration: try PostgresLocation(url, purpose: "queue").connectionConfiguration(), id: 1, logger: Self.logger)
            do {
                _ = try await holder.query("SELECT pg_advisory_lock(\(PostgresQueueStore.migrationLock))", logger: Self.logger).collect()
                let impatient = URL(string: url.absoluteString.replacingOccurrences(of: "connect_timeout=120", with: "connect_timeout=5"))!
                try await CourierClient.withClient { client in
                    let queue = try await client.openQueue(QueueConfiguration(storage: .postgres(impatient)))
                    #expect(try await queue.records().isEmpty)
                    await queue.close()
                }
                try await holder.close()
            } catch {
                try? await holder.close()
                throw error
            }
        }
    }

    @Test func aRestartOfPostgreSQLLosesNothingAndAppliesEachRequestOnce() async throws {
        try await withServerAndPostgres { server, cluster, url in
            try await CourierClient.withClient { client in
                let producer = try await client.openQueue(QueueWorkerScenarios.configuration(.postgres(url), delivers: false))
                for index in 0..<20 {
                    let path = server.url("/idempotent/r\(index)?delay=0.05").absoluteString
                    _ = try await producer.enqueue(CourierRequest<Void>(method: .post, path: path), isOrdered: index % 2 == 0)
                }
                await producer.close()
                let worker = try await client.openQueue(QueueWorkerScenarios.configuration(.postgres(url), concurrency: 4, delivers: false))
                async let done = worker.run(deadline: .seconds(120))
                // Killed while records are in flight, then started again on the same files.
                for _ in 0..<6000 where server.ledger.entries.count < 3 { try await Task.sleep(for: .milliseconds(20)) }
                trace("killing")
                try await offThePool { cluster.kill() }
                // Down for a while: the workers' connections fail and are made again.
                try await Task.sleep(for: .seconds(Double(ProcessInfo.processInfo.environment["COURIER_PG_DOWN"] ?? "0") ?? 0))
                try await offThePool { try cluster.restart() }
                trace("restarted")
                #expect(try await done)
                trace("run returned")
                let records = try await worker.records()
                trace("records read")
                await worker.close()
                trace("closed")
                #expect(records.count == 20)
                #expect(records.allSatisfy { $0.state == .delivered })
                #expect(server.ledger.entries.count == 20)
                #expect(server.ledger.entries.values.allSatisfy { $0.applied == 1 })
                let ordered = server.ledger.appliedKeys.compactMap { server.ledger.entries[$0]?.path }.filter { path in
                    Int(path.dropFirst("/idempotent/r".count)).map { $0 % 2 == 0 } ?? false
                }
                #expect(ordered == stride(from: 0, to: 20, by: 2).map { "/idempotent/r\($0)" })
            }
        }
    }
}

@Suite("courier queue run: several processes on one PostgreSQL database")
struct PostgresQueueRunProcessesTests {
    @Test func severalProcessesShareOneDatabaseAndOneKilledLosesNothing() async throws {
        try await withServerAndPostgres { server, _, url in
            try await QueueWorkerProcesses.severalRunProcessesShareTheQueue(.postgres(url), argument: url.absoluteString, server: server)
        }
    }
}
