import CourierPostgres

/// The cache's tables, created and migrated by the store itself (``PostgresSchema``):
///
/// - `courier_cache_entries`: one row for each stored response, filed under the SHA-256 of its
///   primary key and of its variant, with the entry's fields (as JSON), its body's length and
///   SHA-256, its cost, and when it was stored and last used;
/// - `courier_cache_chunks`: the bodies, in rows of at most ``CacheRows/chunkBytes``, kept out
///   of line and uncompressed (most bodies worth caching are compressed already); removed with
///   their entry, and written before it (the reference is checked at the commit), so that a
///   large body does not hold the totals while it is written;
/// - `courier_cache_totals`: the entry count and the bytes, kept by a trigger, which every
///   process reads to enforce the shared byte bound;
/// - `courier_cache_schema`: the format.
///
/// Every insertion and removal of an entry notifies the channel `courier_cache` with the hex
/// SHA-256 of its primary key (`*` when everything was removed), which memory tiers listen to.
enum CacheSchema {
    /// The tables, their format and how each format is made.
    static let tables = PostgresSchema(versionTable: "courier_cache_schema", lock: migrationLock, migrations: migrations)

    /// The channel changes are notified on.
    static let channel = "courier_cache"

    /// A number of PostgreSQL's advisory locks, taken while the tables are migrated.
    static let migrationLock: Int64 = 0x636F_7572_6361_6368

    /// The statements that bring the tables from each format to the next: step `n` makes
    /// format `n + 1`.
    static let migrations: [[String]] = [
        [
            "CREATE SEQUENCE courier_cache_generations",
            """
            CREATE TABLE courier_cache_entries (
                key_hash bytea NOT NULL,
                variant_hash bytea NOT NULL,
                generation bigint NOT NULL UNIQUE,
                fields bytea NOT NULL,
                body_length bigint NOT NULL,
                body_digest bytea NOT NULL,
                cost bigint NOT NULL,
                stored_at double precision NOT NULL,
                used_at double precision NOT NULL,
                PRIMARY KEY (key_hash, variant_hash)
            )
            """,
            "CREATE INDEX courier_cache_entries_used ON courier_cache_entries (used_at)",
            """
            CREATE TABLE courier_cache_chunks (
                generation bigint NOT NULL REFERENCES courier_cache_entries (generation) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
                position integer NOT NULL,
                bytes bytea NOT NULL,
                PRIMARY KEY (generation, position)
            )
            """,
            "ALTER TABLE courier_cache_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL",
            """
            CREATE TABLE courier_cache_totals (
                id integer PRIMARY KEY CHECK (id = 1),
                entry_count bigint NOT NULL,
                total_bytes bigint NOT NULL
            )
            """,
            "INSERT INTO courier_cache_totals (id, entry_count, total_bytes) VALUES (1, 0, 0)",
            """
            CREATE FUNCTION courier_cache_counted() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    UPDATE courier_cache_totals SET entry_count = entry_count + 1, total_bytes = total_bytes + NEW.cost WHERE id = 1;
                    PERFORM pg_notify('courier_cache', encode(NEW.key_hash, 'hex'));
                ELSE
                    UPDATE courier_cache_totals SET entry_count = entry_count - 1, total_bytes = total_bytes - OLD.cost WHERE id = 1;
                    PERFORM pg_notify('courier_cache', encode(OLD.key_hash, 'hex'));
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER courier_cache_counted AFTER INSERT OR DELETE ON courier_cache_entries
            FOR EACH ROW EXECUTE FUNCTION courier_cache_counted()
            """,
        ]
    ]
}
