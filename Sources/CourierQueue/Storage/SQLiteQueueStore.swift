import Courier
import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLiteNIO

/// The queue's records in an SQLite database (write-ahead log, `synchronous=FULL`): every
/// change is one statement, committed to disk before the call returns. Several processes may
/// open one file: SQLite serialises their writes, a writer waits up to ``busyTimeout`` for
/// another, and each process notices the others' commits through `PRAGMA data_version`.
actor SQLiteQueueStore: QueueBackend {
    let path: String
    nonisolated var location: String { path }
    private let connection: SQLiteConnection
    /// The thread that runs this store's SQLite calls, and theirs alone: a statement may wait
    /// up to ``busyTimeout`` for another process's write, and must not hold a thread that DNS
    /// lookups, the disk cache or another queue of the process wait for meanwhile.
    private let thread: NIOThreadPool
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()
    /// Set by ``close()``: later statements are refused.
    private var isClosed = false
    /// Statements running now. The actor is reentrant, so several may be in flight; the
    /// connection is closed only once none is, never under a running statement.
    private var running = 0
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []

    /// What opening found wrong with the files' permissions, as sentences.
    nonisolated let warnings: [String]
    /// The watchers of ``changes()``, and the task that looks for other processes' commits
    /// while there are any.
    private let broadcast = ChangeBroadcast()
    private var watch: Task<Void, Never>?

    private init(path: String, connection: SQLiteConnection, thread: NIOThreadPool, warnings: [String]) {
        self.path = path
        self.connection = connection
        self.thread = thread
        self.warnings = warnings
    }

    /// Opens (or creates) the database at `path` and checks that it is a queue database. The
    /// folder and file are made private first (see ``QueueFiles``); what was found open to
    /// other users is logged as a warning and kept in ``warnings``.
    static func open(path: String, logger: Logger) async throws(CourierError) -> SQLiteQueueStore {
        let warnings = try QueueFiles.prepare(path: path)
        for warning in warnings { logger.warning("\(warning)", metadata: ["courier.queue": "\(path)"]) }
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(
                storage: .file(path: path), threadPool: thread, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any()
            )
        } catch {
            await stop(thread)
            throw SQLiteQueueStore.storageError(error, path: path, action: "opened")
        }
        let store = SQLiteQueueStore(path: path, connection: connection, thread: thread, warnings: warnings)
        do {
            try await store.prepare()
        } catch {
            await close(connection, thread: thread)
            throw error
        }
        return store
    }

    /// Sets the journal and sync modes, checks the file and creates the table.
    private func prepare() async throws(CourierError) {
        let check = try await run("PRAGMA quick_check", action: "checked")
        guard let verdict = check.first?.columns.first?.data.string, verdict == "ok" else {
            throw CourierError(
                .queueStorage,
                "The queue database at \(path) is damaged (integrity check: \(check.first?.columns.first?.data.description ?? "no answer")). Move the file aside to start an empty queue."
            )
        }
        let version = try await run("PRAGMA user_version", action: "read").first?.columns.first?.data.integer ?? 0
        guard version <= SQLiteQueueStore.schemaVersion else {
            throw CourierError(
                .queueStorage,
                "The queue database at \(path) was written by a newer Courier (format \(version), this one reads \(SQLiteQueueStore.schemaVersion)); open it with that version."
            )
        }
        // Another process may hold the write lock for a moment: wait for it, do not fail.
        _ = try await run("PRAGMA busy_timeout=\(SQLiteQueueStore.busyTimeout)", action: "configured")
        _ = try await run("PRAGMA journal_mode=WAL", action: "configured")
        _ = try await run("PRAGMA synchronous=FULL", action: "configured")
        guard version < SQLiteQueueStore.schemaVersion else { return }
        // Each step and the new version commit together: a process that dies half way, or a
        // second process migrating at the same moment, leaves the file as it was.
        _ = try await run("BEGIN IMMEDIATE", action: "migrated")
        do {
            let current = try await run("PRAGMA user_version", action: "read").first?.columns.first?.data.integer ?? 0
            for step in SQLiteQueueStore.migrations.dropFirst(current) {
                for statement in step { _ = try await run(statement, action: "migrated") }
            }
            _ = try await run("PRAGMA user_version=\(SQLiteQueueStore.schemaVersion)", action: "migrated")
            _ = try await run("COMMIT", action: "migrated")
        } catch {
            _ = try? await run("ROLLBACK", action: "migrated")
            throw error
        }
    }

    /// Closes the database once the statements already running have finished.
    func close() async {
        guard !isClosed else { return }
        isClosed = true
        watch?.cancel()
        broadcast.finish()
        if running > 0 { await withCheckedContinuation { drainWaiters.append($0) } }
        await Self.close(connection, thread: thread)
    }

    /// Closes `connection`, then stops `thread`, in a task of its own so that a cancelled
    /// caller (Ctrl-C in the command-line tool) still closes it: SQLiteNIO skips the close of a
    /// cancelled task, and a connection released unclosed traps.
    private static func close(_ connection: SQLiteConnection, thread: NIOThreadPool) async {
        await Task {
            try? await connection.close()
            await stop(thread)
        }.value
    }

    private static func stop(_ thread: NIOThreadPool) async {
        try? await thread.shutdownGracefully()
    }

    // MARK: Statements

    /// Runs one statement and returns its rows, turning SQLite's errors into ``CourierError``.
    func run(_ sql: String, _ binds: [SQLiteData] = [], action: String) async throws(CourierError) -> [SQLiteRow] {
        guard !isClosed else {
            throw CourierError(.clientShutdown, "The queue database at \(path) was closed; open the queue again to use it.")
        }
        running += 1
        defer {
            running -= 1
            if running == 0 {
                for waiter in drainWaiters { waiter.resume() }
                drainWaiters.removeAll()
            }
        }
        do {
            return try await connection.query(sql, binds)
        } catch {
            throw SQLiteQueueStore.storageError(error, path: path, action: action)
        }
    }

    /// Runs a statement that returns records and decodes them.
    func records(_ sql: String, _ binds: [SQLiteData] = [], action: String) async throws(CourierError) -> [QueueRecord] {
        var result: [QueueRecord] = []
        for row in try await run(sql, binds, action: action) { result.append(try decode(row)) }
        return result
    }

    func encode<T: Encodable>(_ value: T) throws(CourierError) -> SQLiteData {
        do {
            return .blob(ByteBuffer(bytes: try encoder.encode(value)))
        } catch {
            throw CourierError(.invalidBody, "The queued request could not be encoded: \(error).", underlyingError: error)
        }
    }

    private func decode(_ row: SQLiteRow) throws(CourierError) -> QueueRecord {
        do {
            guard let id = row.column("id")?.string, let requestBlob = row.column("request")?.blob,
                let state = row.column("state")?.string.flatMap(QueueRecord.State.init(rawValue:)),
                let attempts = SQLiteQueueStore.wholeNumber(row.column("attempts")), let created = row.column("created_at")?.double,
                let next = row.column("next_attempt_at")?.double, let sequence = SQLiteQueueStore.wholeNumber(row.column("sequence"))
            else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a column is missing or has the wrong type")) }
            let request = try decoder.decode(QueuedRequest.self, from: Data(requestBlob.readableBytesView))
            let outcome = try row.column("outcome")?.blob.map { try decoder.decode(QueueOutcome.self, from: Data($0.readableBytesView)) }
            return QueueRecord(
                id: id, request: request, state: state, attempts: Int(attempts), createdAt: Date(timeIntervalSince1970: created),
                nextAttemptAt: Date(timeIntervalSince1970: next), expiresAt: row.column("expires_at")?.double.map(Date.init(timeIntervalSince1970:)),
                outcome: outcome, sequence: Int64(sequence), lease: SQLiteQueueStore.lease(in: row)
            )
        } catch {
            throw CourierError(
                .queueStorage,
                "A record in the queue database at \(path) cannot be read (\(error)); drop it with `courier queue drop`, or move the file aside.",
                underlyingError: error
            )
        }
    }

    /// The lease in a row's `lease_holder` and `lease_expires_at`, when both are there.
    static func lease(in row: SQLiteRow) -> QueueLease? {
        guard let holder = row.column("lease_holder")?.string, let expiry = row.column("lease_expires_at")?.double else { return nil }
        return QueueLease(holder: holder, expiresAt: Date(timeIntervalSince1970: expiry))
    }

    // MARK: Other processes' changes

    /// Yields when another connection committed a change to the file; SQLite has no
    /// notification between processes, so `PRAGMA data_version` is read every
    /// ``changePollInterval`` while someone watches.
    nonisolated func changes() -> AsyncStream<Void> {
        let stream = broadcast.subscribe()
        Task { await self.watchForChanges() }
        return stream
    }

    /// Starts reading `PRAGMA data_version`, unless it runs; it stops once nobody watches.
    private func watchForChanges() {
        guard !isClosed, watch == nil else { return }
        let broadcast = broadcast
        watch = Task { [weak self] in
            var seen: Int?
            while !Task.isCancelled, broadcast.isWatched {
                guard let self, let version = try? await self.run("PRAGMA data_version", action: "read").first?.columns.first?.data.integer
                else { break }
                if let seen, seen != version { broadcast.announce() }
                seen = version
                try? await Task.sleep(for: SQLiteQueueStore.changePollInterval)
            }
            await self?.watchEnded()
        }
    }

    private func watchEnded() {
        watch = nil
    }

    /// How often ``changes()`` looks for other processes' commits.
    static let changePollInterval: Duration = .milliseconds(500)

    /// The whole number in a column; `nil` for anything else. `SQLiteData.integer` is not
    /// used: it traps on a real number no `Int` can hold, which a damaged database may have.
    static func wholeNumber(_ data: SQLiteData?) -> Int? {
        switch data {
        case .integer(let value): value
        case .float(let value): Int(exactly: value)
        case .text(let text): Int(text)
        default: nil
        }
    }

    static func storageError(_ error: any Error, path: String, action: String) -> CourierError {
        let advice: String
        if let sqlite = error as? SQLiteError, [.notADatabase, .corrupt].contains(sqlite.reason) {
            advice = "The file is not a queue database or is damaged; move it aside to start an empty queue."
        } else {
            advice = "Check that the file and its folder are writable and the disk has space."
        }
        // SQLite's own sentence, without the name of its result code.
        let reason = (error as? SQLiteError)?.message ?? "\(error)"
        return CourierError(
            .queueStorage, "The queue database at \(path) could not be \(action): \(reason). \(advice)", underlyingError: error
        )
    }

    /// How long a statement waits for another process's write lock, in milliseconds.
    static let busyTimeout = 30_000

    /// The format this version writes: ``migrations`` has one step for each.
    static var schemaVersion: Int { migrations.count }

    /// The statements that bring a database from each format to the next: step `n` makes
    /// format `n + 1`. Format 2 added leases, so that several workers share a file; format 3, an
    /// index of the waiting records in queue order.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE IF NOT EXISTS courier_queue (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                origin TEXT NOT NULL,
                is_ordered INTEGER NOT NULL,
                state TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                created_at REAL NOT NULL,
                next_attempt_at REAL NOT NULL,
                expires_at REAL,
                tag TEXT,
                request BLOB NOT NULL,
                outcome BLOB
            )
            """
        ],
        [
            "ALTER TABLE courier_queue ADD COLUMN lease_holder TEXT",
            "ALTER TABLE courier_queue ADD COLUMN lease_expires_at REAL",
            "CREATE INDEX IF NOT EXISTS courier_queue_active ON courier_queue (state, origin, sequence)",
        ],
        // Format 3: claims read the waiting records in queue order, stopping at the first few due.
        ["CREATE INDEX IF NOT EXISTS courier_queue_due ON courier_queue (sequence) WHERE state IN ('pending', 'in-flight')"],
    ]
}
