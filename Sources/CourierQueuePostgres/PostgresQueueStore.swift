import Courier
import CourierPostgres
import CourierQueue
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The queue's records in a PostgreSQL database, shared by workers on many hosts.
///
/// Statements go through a small pool of connections; one more connection listens on the
/// `courier_queue` channel, which triggers notify when a record is written, deleted, settled,
/// released or made due (not when it is claimed or its lease renewed), so that a worker claims
/// again when another enqueues or settles a record, whatever process wrote it, the application's
/// own transactions included. A connection lost (a server restart, a network cut) is made again;
/// a statement that fails meanwhile throws ``CourierError/Kind/queueStorage``.
actor PostgresQueueStore: QueueBackend {
    nonisolated let location: String
    nonisolated let warnings: [String] = []
    let target: PostgresLocation
    let client: PostgresClient
    let logger: Logger
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()
    private var pool: Task<Void, Never>?
    private var listener: Task<Void, Never>?
    private let broadcast = ChangeBroadcast()
    private var isClosed = false

    private init(target: PostgresLocation, logger: Logger) {
        self.target = target
        self.location = target.redacted
        self.logger = logger
        self.client = PostgresClient(configuration: target.configuration(maximumConnections: PostgresQueueStore.poolSize), backgroundLogger: logger)
    }

    /// Connects to the database at `location`, and creates or migrates the queue's tables.
    ///
    /// - Throws: ``CourierError/Kind/queueStorage`` when the server cannot be reached and its
    ///   tables made ready within the location's `connect_timeout`, refuses the login, or holds
    ///   tables of a newer format.
    static func open(_ target: PostgresLocation, logger: Logger) async throws(CourierError) -> PostgresQueueStore {
        // One connection of its own first: a server that is not there, or refuses the login,
        // is an error at once rather than a pool that keeps trying.
        do {
            try await schema.prepare(target, logger: logger)
        } catch {
            throw openingError(error, target: target)
        }
        let store = PostgresQueueStore(target: target, logger: logger)
        await store.start()
        return store
    }

    private func start() {
        let client = client
        pool = Task { await client.run() }
        startListening()
    }

    /// Closes the connections once the statements already running have finished.
    func close() async {
        guard !isClosed else { return }
        isClosed = true
        listener?.cancel()
        broadcast.finish()
        pool?.cancel()
        // The pool ends once its connections are closed; it is not waited for past a few
        // seconds, so that a connection the network dropped cannot hold the close.
        let pool = pool
        let listener = listener
        _ = await outcome(within: .seconds(10)) {
            await pool?.value
            await listener?.value
        }
    }

    // MARK: Statements

    /// Runs `query` and returns its rows, turning PostgreSQL's errors into ``CourierError``.
    func run(_ query: PostgresQuery, action: String) async throws(CourierError) -> [PostgresRow] {
        try await perform(action: action) { client, logger in try await client.query(query, logger: logger).collect() }
    }

    /// Runs the prepared `statement`, preparing it first on a connection that has not yet.
    func run<Statement: PostgresPreparedStatement>(_ statement: Statement, action: String) async throws(CourierError) -> [PostgresRow]
    where Statement.Row == PostgresRow {
        try await perform(action: action) { client, logger in
            var rows: [PostgresRow] = []
            for try await row in try await client.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }

    /// Runs `work` within the statement deadline on an open store.
    private func perform(
        action: String, _ work: @escaping @Sendable (PostgresClient, Logger) async throws -> [PostgresRow]
    ) async throws(CourierError) -> [PostgresRow] {
        guard !isClosed else {
            throw CourierError(.clientShutdown, "The queue database at \(location) was closed; open the queue again to use it.")
        }
        let client = client
        let logger = logger
        let result = await outcome(within: PostgresQueueStore.statementDeadline) { try await work(client, logger) }
        switch result {
        case .success(let rows): return rows
        case .failure(let error): throw PostgresQueueStore.storageError(error, location: location, action: action)
        }
    }

    /// Why opening `target` failed, as the error ``open(_:logger:)`` throws.
    static func openingError(_ error: any Error, target: PostgresLocation) -> CourierError {
        switch error {
        case let error as CourierError:
            return error
        case let error as PostgresSchema.TooNew:
            return CourierError(
                .queueStorage,
                "The queue tables at \(target.redacted) were written by a newer Courier (format \(error.found), this one reads \(error.known)); open them with that version."
            )
        case is StatementTimeout:
            return CourierError(
                .queueStorage,
                "The queue database at \(target.redacted) could not be reached and prepared within \(target.connectTimeout); check that PostgreSQL runs there and accepts this user, or give a busy server more time with connect_timeout in the URL."
            )
        case is CancellationError:
            return CourierError(.cancelled, "Opening the queue database at \(target.redacted) was cancelled.", underlyingError: error)
        default:
            return storageError(error, location: target.redacted, action: "opened")
        }
    }

    static func storageError(_ error: any Error, location: String, action: String) -> CourierError {
        let reason: String
        if error is CancellationError {
            return CourierError(.cancelled, "A statement on the queue database at \(location) was cancelled.", underlyingError: error)
        } else if let error = error as? PSQLError {
            reason = error.serverInfo?[.message] ?? "\(error.code)"
        } else {
            reason = "\(error)"
        }
        return CourierError(
            .queueStorage,
            "The queue database at \(location) could not be \(action): \(reason). Check that PostgreSQL runs there and that this user may use the courier_queue tables.",
            underlyingError: error
        )
    }

    func encode<T: Encodable>(_ value: T) throws(CourierError) -> ByteBuffer {
        do {
            return ByteBuffer(bytes: try encoder.encode(value))
        } catch {
            throw CourierError(.invalidBody, "The queued request could not be encoded: \(error).", underlyingError: error)
        }
    }

    /// The record in `row`.
    func decode(_ row: PostgresRow) throws(CourierError) -> QueueRecord {
        let columns = row.makeRandomAccess()
        do {
            let id = try columns["id"].decode(String.self)
            let stateName = try columns["state"].decode(String.self)
            guard let state = QueueRecord.State(rawValue: stateName) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "unknown state \(stateName)"))
            }
            let request = try decoder.decode(QueuedRequest.self, from: Data(try columns["request"].decode(ByteBuffer.self).readableBytesView))
            let outcome = try columns["outcome"].decode(ByteBuffer?.self).map { try decoder.decode(QueueOutcome.self, from: Data($0.readableBytesView)) }
            let holder = try columns["lease_holder"].decode(String?.self)
            let leaseEnd = try columns["lease_expires_at"].decode(Double?.self)
            return QueueRecord(
                id: id, request: request, state: state, attempts: Int(try columns["attempts"].decode(Int32.self)),
                createdAt: Date(timeIntervalSince1970: try columns["created_at"].decode(Double.self)),
                nextAttemptAt: Date(timeIntervalSince1970: try columns["next_attempt_at"].decode(Double.self)),
                expiresAt: try columns["expires_at"].decode(Double?.self).map(Date.init(timeIntervalSince1970:)),
                outcome: outcome, sequence: try columns["sequence"].decode(Int64.self),
                lease: holder.flatMap { holder in leaseEnd.map { QueueLease(holder: holder, expiresAt: Date(timeIntervalSince1970: $0)) } }
            )
        } catch {
            throw CourierError(
                .queueStorage,
                "A record in the queue database at \(location) cannot be read (\(error)); drop it with `courier queue drop`.",
                underlyingError: error
            )
        }
    }

    /// Runs `query` and decodes the records it returns.
    func records(_ query: PostgresQuery, action: String) async throws(CourierError) -> [QueueRecord] {
        var result: [QueueRecord] = []
        for row in try await run(query, action: action) { result.append(try decode(row)) }
        return result
    }

    // MARK: Changes

    /// Yields when the `courier_queue` channel is notified, and once after the listening
    /// connection was made again (changes may have been missed while it was down).
    nonisolated func changes() -> AsyncStream<Void> {
        broadcast.subscribe()
    }

    /// Keeps one connection listening on the channel, made again after a second (up to five)
    /// whenever it is lost, until the store is closed.
    private func startListening() {
        let target = target
        let logger = logger
        let broadcast = broadcast
        listener = Task {
            var failures = 0
            while !Task.isCancelled {
                do {
                    let configuration = try target.connectionConfiguration()
                    let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                    do {
                        try await connection.listen(on: PostgresQueueStore.channel) { notifications in
                            // Listening now: what changed while no connection listened is looked at once.
                            broadcast.announce()
                            for try await _ in notifications { broadcast.announce() }
                        }
                        failures = 0
                    } catch {
                        await closeAndWait(connection)
                        throw error
                    }
                    await closeAndWait(connection)
                } catch {
                    if Task.isCancelled { return }
                    failures += 1
                    logger.debug("courier queue: listening for changes failed: \(error)")
                }
                try? await Task.sleep(for: .seconds(min(failures, 5)))
            }
        }
    }

    /// The channel the trigger notifies.
    static let channel = "courier_queue"
    /// Statement connections per worker.
    static let poolSize = 4
    /// How long one statement may take.
    static let statementDeadline: Duration = .seconds(30)
}
