import Courier
import Logging
import PostgresNIO

/// The queue's tables, created and migrated by the store itself: `courier_queue_schema` holds
/// the format, and each worker that opens the database brings it up to date under an advisory
/// lock, so that workers starting together migrate it once.
extension PostgresQueueStore {
    /// The format this version writes: ``migrations`` has one step for each.
    static var schemaVersion: Int { migrations.count }

    /// The statements that bring the tables from each format to the next: step `n` makes
    /// format `n + 1`.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE courier_queue (
                sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id text NOT NULL UNIQUE,
                origin text NOT NULL,
                is_ordered boolean NOT NULL,
                state text NOT NULL,
                attempts integer NOT NULL,
                created_at double precision NOT NULL,
                next_attempt_at double precision NOT NULL,
                expires_at double precision,
                tag text,
                request bytea NOT NULL,
                outcome bytea,
                lease_holder text,
                lease_expires_at double precision
            )
            """,
            "CREATE INDEX courier_queue_active ON courier_queue (origin, sequence) WHERE state IN ('pending', 'in-flight')",
            """
            CREATE FUNCTION courier_queue_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('courier_queue', '');
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER courier_queue_changed AFTER INSERT OR UPDATE OR DELETE ON courier_queue
            FOR EACH STATEMENT EXECUTE FUNCTION courier_queue_notify()
            """,
        ],
        // Format 2: claims read the waiting records in queue order, stopping at the first few
        // due; workers are notified only of changes that may give them something to do (a
        // record written, deleted, claimed, settled or made due), not of lease renewals or
        // statements that changed nothing. Notifications of one transaction are delivered once.
        [
            "CREATE INDEX courier_queue_due ON courier_queue (sequence) WHERE state IN ('pending', 'in-flight')",
            "DROP TRIGGER courier_queue_changed ON courier_queue",
            """
            CREATE TRIGGER courier_queue_written AFTER INSERT OR DELETE ON courier_queue
            FOR EACH ROW EXECUTE FUNCTION courier_queue_notify()
            """,
            """
            CREATE TRIGGER courier_queue_moved AFTER UPDATE ON courier_queue
            FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.next_attempt_at IS DISTINCT FROM NEW.next_attempt_at)
            EXECUTE FUNCTION courier_queue_notify()
            """,
        ],
        // Format 3: a claim (a record going in flight) notifies nobody, since it gives no other
        // worker anything to do; what it ends (a settle, a release) still does.
        [
            "DROP TRIGGER courier_queue_moved ON courier_queue",
            """
            CREATE TRIGGER courier_queue_moved AFTER UPDATE ON courier_queue
            FOR EACH ROW WHEN (NEW.state <> 'in-flight'
                AND (OLD.state IS DISTINCT FROM NEW.state OR OLD.next_attempt_at IS DISTINCT FROM NEW.next_attempt_at))
            EXECUTE FUNCTION courier_queue_notify()
            """,
        ],
    ]

    /// The version of the tables as last committed, read without any lock; 0 when there are
    /// none yet.
    private static func committedVersion(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let exists = try await connection.query("SELECT to_regclass('courier_queue_schema') IS NOT NULL", logger: logger).collect()
        guard try exists.first?.decode(Bool.self) == true else { return 0 }
        let rows = try await connection.query("SELECT max(version) FROM courier_queue_schema", logger: logger).collect()
        return try rows.first?.decode(Int?.self) ?? 0
    }

    /// A number of PostgreSQL's advisory locks, taken while the tables are migrated.
    static let migrationLock: Int64 = 0x636F_7572_6965_72

    /// Creates the tables, or brings them to ``schemaVersion``, in one transaction on
    /// `connection`.
    ///
    /// Tables already at this version are opened without the lock: a worker stopped in the
    /// middle of opening (paused, or killed before PostgreSQL noticed) holds the lock until its
    /// session ends, and every other worker would wait for it.
    static func migrate(on connection: PostgresConnection, location: String, logger: Logger) async throws(CourierError) {
        let steps = migrations
        if (try? await committedVersion(on: connection, logger: logger)) == steps.count { return }
        let found: Int
        do {
            found = try await connection.withTransaction(logger: logger) { connection in
                // Every result is read to its end before the next statement: a result left
                // unread (the lock's one row) could leave the connection waiting for ever.
                func run(_ query: PostgresQuery) async throws -> [PostgresRow] {
                    try await connection.query(query, logger: logger).collect()
                }
                _ = try await run("SELECT pg_advisory_xact_lock(\(migrationLock))")
                _ = try await run("CREATE TABLE IF NOT EXISTS courier_queue_schema (version integer NOT NULL)")
                let current = try await run("SELECT max(version) FROM courier_queue_schema").first?.decode(Int?.self) ?? 0
                guard current < steps.count else { return current }
                for step in steps.dropFirst(current) {
                    for statement in step { _ = try await run(PostgresQuery(unsafeSQL: statement)) }
                }
                _ = try await run("DELETE FROM courier_queue_schema")
                _ = try await run("INSERT INTO courier_queue_schema (version) VALUES (\(steps.count))")
                return current
            }
        } catch {
            throw storageError((error as? PostgresTransactionError).flatMap { $0.closureError ?? $0.beginError ?? $0.commitError } ?? error, location: location, action: "prepared")
        }
        guard found <= steps.count else {
            throw CourierError(
                .queueStorage,
                "The queue tables at \(location) were written by a newer Courier (format \(found), this one reads \(steps.count)); open them with that version."
            )
        }
    }
}
