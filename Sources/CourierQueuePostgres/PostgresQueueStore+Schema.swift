import CourierPostgres

/// The queue's tables, created and migrated by the store itself (``PostgresSchema``):
/// `courier_queue_schema` holds the format.
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

    /// A number of PostgreSQL's advisory locks, taken while the tables are migrated.
    static let migrationLock: Int64 = 0x636F_7572_6965_72

    /// The tables, their format and how each format is made.
    static let schema = PostgresSchema(versionTable: "courier_queue_schema", lock: migrationLock, migrations: migrations)
}
