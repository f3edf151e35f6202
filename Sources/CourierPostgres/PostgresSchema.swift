import Logging
import PostgresNIO

/// A product's tables and the steps that make each format from the one before, brought up to
/// date by whichever process opens the database first, under an advisory lock, so that
/// processes starting together migrate them once.
package struct PostgresSchema: Sendable {
    /// The table that holds the format (`courier_queue_schema`, say).
    package var versionTable: String
    /// The advisory lock taken while the tables are migrated.
    package var lock: Int64
    /// The statements that bring the tables from each format to the next: step `n` makes
    /// format `n + 1`.
    package var migrations: [[String]]

    package init(versionTable: String, lock: Int64, migrations: [[String]]) {
        self.versionTable = versionTable
        self.lock = lock
        self.migrations = migrations
    }

    /// The format this version writes.
    package var version: Int { migrations.count }

    /// Tables of a later format than this version reads.
    package struct TooNew: Error {
        package var found: Int
        package var known: Int
    }

    /// Creates the tables, or brings them to ``version``, in one transaction on `connection`.
    ///
    /// Tables already at this version are opened without the lock: a process stopped in the
    /// middle of opening (paused, or killed before PostgreSQL noticed) holds the lock until its
    /// session ends, and every other process would wait for it.
    ///
    /// - Throws: ``TooNew`` for tables of a later format; PostgreSQL's error otherwise, taken
    ///   out of the transaction's wrapper.
    package func migrate(on connection: PostgresConnection, logger: Logger) async throws {
        let steps = migrations
        let table = versionTable
        if (try? await committedVersion(on: connection, logger: logger)) == steps.count { return }
        let found: Int
        do {
            found = try await connection.withTransaction(logger: logger) { connection in
                // Every result is read to its end before the next statement: a result left
                // unread (the lock's one row) could leave the connection waiting for ever.
                func run(_ query: PostgresQuery) async throws -> [PostgresRow] {
                    try await connection.query(query, logger: logger).collect()
                }
                _ = try await run("SELECT pg_advisory_xact_lock(\(lock))")
                _ = try await run(PostgresQuery(unsafeSQL: "CREATE TABLE IF NOT EXISTS \(table) (version integer NOT NULL)"))
                let current = try await run(PostgresQuery(unsafeSQL: "SELECT max(version) FROM \(table)")).first?.decode(Int?.self) ?? 0
                guard current < steps.count else { return current }
                for step in steps.dropFirst(current) {
                    for statement in step { _ = try await run(PostgresQuery(unsafeSQL: statement)) }
                }
                _ = try await run(PostgresQuery(unsafeSQL: "DELETE FROM \(table)"))
                _ = try await run(PostgresQuery(unsafeSQL: "INSERT INTO \(table) (version) VALUES (\(steps.count))"))
                return current
            }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.beginError ?? error.commitError ?? error
        }
        guard found <= steps.count else { throw TooNew(found: found, known: steps.count) }
    }

    /// The version of the tables as last committed, read without any lock; 0 when there are
    /// none yet.
    private func committedVersion(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let exists = try await connection.query(PostgresQuery(unsafeSQL: "SELECT to_regclass('\(versionTable)') IS NOT NULL"), logger: logger)
            .collect()
        guard try exists.first?.decode(Bool.self) == true else { return 0 }
        let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT max(version) FROM \(versionTable)"), logger: logger).collect()
        return try rows.first?.decode(Int?.self) ?? 0
    }

    /// Connects once to `location` and migrates the tables, all within the location's
    /// `connect_timeout`.
    ///
    /// Opening is not waited for past the deadline: a migration that waits for another
    /// process's lock, or a server that answers the login and then nothing, would otherwise hold
    /// the caller however its task is cancelled. Its connection is closed instead.
    ///
    /// - Throws: ``StatementTimeout`` at the deadline; ``TooNew``; the connection's or
    ///   PostgreSQL's error otherwise.
    package func prepare(_ location: PostgresLocation, logger: Logger) async throws {
        var settings = try location.connectionConfiguration()
        // The deadline below bounds the whole of opening and names `connect_timeout`; the
        // connection's own timer is set past it so that it never answers first with less.
        settings.options.connectTimeout = .seconds(location.connectTimeout.components.seconds + 5)
        let configuration = settings
        let schema = self
        let opening = OpeningConnection()
        let result = await outcome(within: location.connectTimeout) {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            guard opening.keep(connection) else { throw CancellationError() }
            do {
                try await schema.migrate(on: connection, logger: logger)
            } catch {
                await opening.close()
                throw error
            }
            await opening.close()
        }
        if case .failure(let error) = result {
            opening.abandon()
            throw error
        }
    }
}
