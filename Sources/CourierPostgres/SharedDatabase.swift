import Courier
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// The connections of one store of the fleet (the cache, the limits) and what it knows of the
/// server: whether its tables are ready, and whether the server answers.
///
/// The database is opened on first use: one connection of its own creates or migrates the
/// tables (bounded by the URL's `connect_timeout`), then statements go through a small pool.
/// A failure that says the server cannot be reached (no connection, a connection lost, no answer
/// within ``statementTimeout``) begins an outage: every call then fails at once, without
/// touching the network, until a probe in the background finds the server answering again,
/// after half a second, then one, two, four and at most five seconds between tries. The
/// outage's beginning and end are reported once each; an error of SQL alone (a statement the
/// server refused) fails that call and begins no outage.
package actor SharedDatabase {
    /// What a statement needs: the pool and the logger.
    package typealias Work<Value: Sendable> = @Sendable (PostgresClient, Logger) async throws -> Value

    /// Why the server is not used, and when it is tried again.
    private struct Outage {
        var reason: String
    }

    /// The state a statement checks first.
    private struct Gate {
        var isReady = false
        var outage: String?
        var isShutDown = false
    }

    package nonisolated let location: PostgresLocation
    package nonisolated let statementTimeout: Duration
    package nonisolated let schema: PostgresSchema
    /// The kind of the errors thrown: ``CourierError/Kind/cacheStorageFailed`` for the cache.
    package nonisolated let failureKind: CourierError.Kind
    package nonisolated let logger: Logger
    private nonisolated let client: PostgresClient
    /// What a statement checks before it runs, mirrored from the actor's state under a lock,
    /// so that a statement on a ready database does not wait for the actor.
    private nonisolated let gate = NIOLockedValueBox(Gate())
    /// Told the reason when an outage begins, and `nil` when it ends.
    private let report: @Sendable (String?) -> Void
    private var pool: Task<Void, Never>?
    private var opening: Task<Void, any Error>?
    private var isReady = false
    private var outage: Outage?
    private var probe: Task<Void, Never>?
    private var isShutDown = false

    package init(
        location: PostgresLocation, schema: PostgresSchema, failureKind: CourierError.Kind, statementTimeout: Duration, logger: Logger,
        report: @escaping @Sendable (String?) -> Void
    ) {
        self.location = location
        self.schema = schema
        self.failureKind = failureKind
        self.statementTimeout = statementTimeout
        self.logger = logger
        self.report = report
        self.client = PostgresClient(configuration: location.configuration(maximumConnections: SharedDatabase.poolSize), backgroundLogger: logger)
    }

    deinit {
        pool?.cancel()
        probe?.cancel()
        opening?.cancel()
    }

    /// Statement connections per process.
    package static let poolSize = 4

    /// Runs `work` on the pool within ``statementTimeout`` and `extra` (for a statement that
    /// carries much data), opening the database first if it has not been yet.
    ///
    /// - Throws: an error of ``failureKind`` at once while an outage lasts, and
    ///   when the statement fails; ``CourierError/Kind/cancelled`` when the caller is.
    package nonisolated func perform<Value: Sendable>(
        _ action: String, allowing extra: Duration = .zero, _ work: @escaping Work<Value>
    ) async throws(CourierError) -> Value {
        let gate = gate.withLockedValue { $0 }
        try check(gate)
        if !gate.isReady { try await prepareForUse() }
        let client = client
        let logger = logger
        switch await outcome(within: statementTimeout + extra, { try await work(client, logger) }) {
        case .success(let value):
            return value
        case .failure(let error):
            if SharedDatabase.meansUnreachable(error) { await begin(Outage(reason: SharedDatabase.reason(error))) }
            throw storageError(error, action: action)
        }
    }

    /// Throws when `gate` says no statement may run: after a shutdown, or during an outage.
    private nonisolated func check(_ gate: Gate) throws(CourierError) {
        guard !gate.isShutDown else {
            throw CourierError(.clientShutdown, "The \(location.purpose) database at \(location.redacted) was closed.")
        }
        if let reason = gate.outage { throw unavailable(Outage(reason: reason)) }
    }

    /// Opens the database unless it is open, closed or out of reach.
    private func prepareForUse() async throws(CourierError) {
        try check(gate.withLockedValue { $0 })
        if !isReady { try await open() }
    }

    /// Stops the pool and the probe; later calls throw ``CourierError/Kind/clientShutdown``.
    package func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        gate.withLockedValue { $0.isShutDown = true }
        probe?.cancel()
        opening?.cancel()
        pool?.cancel()
        let pool = pool
        // The pool ends once its connections are closed; not waited for past a few seconds, so
        // that a connection the network dropped cannot hold the shutdown.
        _ = await outcome(within: .seconds(10)) { await pool?.value }
    }

    // MARK: Opening

    /// Creates or migrates the tables, once for every caller waiting; a failure begins an
    /// outage.
    private func open() async throws(CourierError) {
        do {
            try await openTables()
        } catch {
            if error.kind != .cancelled { begin(Outage(reason: error.underlyingError.map(SharedDatabase.reason) ?? error.message)) }
            throw error
        }
    }

    /// Creates or migrates the tables with a connection of its own, once for every caller
    /// waiting, and starts the pool.
    private func openTables() async throws(CourierError) {
        if opening == nil {
            let location = location
            let logger = logger
            let schema = schema
            opening = Task { try await schema.prepare(location, logger: logger) }
        }
        guard let opening else { return }
        do {
            try await opening.value
        } catch {
            self.opening = nil
            throw SharedDatabase.openingError(error, location: location, kind: failureKind)
        }
        if !isReady {
            isReady = true
            let client = client
            pool = Task { await client.run() }
            gate.withLockedValue { $0.isReady = true }
        }
    }

    // MARK: Outages

    /// Records `outage` unless one is on already, reports it, and starts the probe. The probe
    /// holds the database only while it tries, so that a store nobody uses any more is freed.
    private func begin(_ outage: Outage) {
        guard self.outage == nil, !isShutDown else { return }
        self.outage = outage
        gate.withLockedValue { $0.outage = outage.reason }
        logger.warning("\(location.purpose) database unavailable", metadata: ["location": "\(location.redacted)", "reason": "\(outage.reason)"])
        report(outage.reason)
        probe = Task { [weak self] in
            var failures = 1
            while !Task.isCancelled {
                try? await Task.sleep(for: SharedDatabase.pause(after: failures))
                guard let database = self, !Task.isCancelled else { return }
                if await database.recovers() { return }
                failures += 1
            }
        }
    }

    /// The pause before the next probe after `failures` failed tries: half a second, then one,
    /// two, four, and five seconds from then on.
    package static func pause(after failures: Int) -> Duration {
        failures <= 1 ? .milliseconds(500) : .seconds(min(1 << min(failures - 2, 3), 5))
    }

    /// Whether the server answers again; if so, the outage ends and that is reported.
    private func recovers() async -> Bool {
        guard outage != nil, !isShutDown else { return true }
        guard await answers() else { return false }
        outage = nil
        gate.withLockedValue { $0.outage = nil }
        logger.notice("\(location.purpose) database available again", metadata: ["location": "\(location.redacted)"])
        report(nil)
        return true
    }

    /// Whether the server answers a trivial statement (after preparing the tables, when that
    /// was never done).
    private func answers() async -> Bool {
        if !isReady {
            do throws(CourierError) { try await openTables() } catch { return false }
            return isReady
        }
        let client = client
        let logger = logger
        let result = await outcome(within: statementTimeout) { _ = try await client.query("SELECT 1", logger: logger).collect() }
        if case .success = result { return true }
        return false
    }

    private nonisolated func unavailable(_ outage: Outage) -> CourierError {
        CourierError(
            failureKind,
            "The \(location.purpose) database at \(location.redacted) is unavailable (\(outage.reason)); it is skipped until it answers again."
        )
    }

    // MARK: Errors

    /// Whether `error` says the server cannot be reached, rather than that it refused one
    /// statement: no answer in time, a connection that could not be made or was lost, or the
    /// server's own word that it is shutting down, starting or out of connections (SQLSTATE
    /// classes 08, 53 and 57).
    package static func meansUnreachable(_ error: any Error) -> Bool {
        if error is StatementTimeout { return true }
        if let error = error as? PostgresTransactionError {
            return meansUnreachable(error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError ?? error)
        }
        guard let error = error as? PSQLError else { return !(error is CancellationError) && !(error is CourierError) }
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else { return true }
        return ["08", "53", "57"].contains(String(state.prefix(2)))
    }

    /// A short reason for `error` in plain words, for one line of a warning.
    package static func reason(_ error: any Error) -> String {
        if let error = error as? PostgresTransactionError {
            return reason(error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError ?? error)
        }
        if let error = error as? StatementTimeout { return "no answer within \(error.deadline)" }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return reason(underlying) }
            switch error.code {
            case .serverClosedConnection: return "the server closed the connection"
            case .clientClosedConnection, .poolClosed: return "the connection was closed"
            default: return "\(error.code)"
            }
        }
        if let failure = ConnectionFailure.of(error, responseStarted: false) {
            switch failure {
            case .refused: return "connection refused"
            case .hostNotFound: return "host not found"
            case .unreachable: return "host unreachable"
            case .reset: return "connection reset"
            default: return "the server closed the connection"
            }
        }
        return "\(error)"
    }

    package nonisolated func storageError(_ error: any Error, action: String) -> CourierError {
        if error is CancellationError {
            return CourierError(.cancelled, "A statement on the \(location.purpose) database at \(location.redacted) was cancelled.", underlyingError: error)
        }
        return CourierError(
            failureKind,
            "The \(location.purpose) database at \(location.redacted) could not \(action): \(SharedDatabase.reason(error)).",
            underlyingError: error
        )
    }

    /// Why opening failed, as ``perform(_:_:)`` throws it.
    static func openingError(_ error: any Error, location: PostgresLocation, kind: CourierError.Kind) -> CourierError {
        switch error {
        case let error as CourierError:
            return error
        case let error as PostgresSchema.TooNew:
            return CourierError(
                kind,
                "The \(location.purpose) tables at \(location.redacted) were written by a newer Courier (format \(error.found), this one reads \(error.known)); use that version, or another database."
            )
        case is StatementTimeout:
            return CourierError(
                kind,
                "The \(location.purpose) database at \(location.redacted) could not be reached and prepared within \(location.connectTimeout); check that PostgreSQL runs there and accepts this user."
            )
        case is CancellationError:
            return CourierError(.cancelled, "Opening the \(location.purpose) database at \(location.redacted) was cancelled.", underlyingError: error)
        default:
            return CourierError(
                kind,
                "The \(location.purpose) database at \(location.redacted) could not be opened: \(reason(error)). Check that PostgreSQL runs there and that this user may create tables there.",
                underlyingError: error
            )
        }
    }
}
