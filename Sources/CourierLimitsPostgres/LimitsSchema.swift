import CourierPostgres

/// The limits' tables, created and migrated by the budget itself (``PostgresSchema``):
///
/// - `courier_limits_origins`: one row for each origin: until when it is paused, the tokens of
///   a configured rate, and what the server last said of its quota;
/// - `courier_limits_leases`: one row for each exchange in flight, with the process that holds
///   it and when it expires unless renewed (so that a process that dies frees its share);
/// - `courier_limits_schema`: the format.
///
/// The function `courier_limits_acquire` takes a lease in one statement, with the origin's row
/// locked, so that processes admitting requests together count each other. Deleting a lease
/// notifies the channel `courier_limits` with its origin, which waiting processes listen to.
enum LimitsSchema {
    /// The channel releases are notified on.
    static let channel = "courier_limits"

    /// A number of PostgreSQL's advisory locks, taken while the tables are migrated.
    static let migrationLock: Int64 = 0x636F_7572_6C69_6D

    /// The tables, their format and how each format is made.
    static let tables = PostgresSchema(versionTable: "courier_limits_schema", lock: migrationLock, migrations: migrations)

    /// The statements that bring the tables from each format to the next.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE courier_limits_origins (
                origin text PRIMARY KEY,
                paused_until double precision NOT NULL DEFAULT 0,
                tokens double precision,
                refilled_at double precision,
                remaining bigint,
                resets_at double precision,
                quota bigint,
                quota_window double precision
            )
            """,
            """
            CREATE TABLE courier_limits_leases (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                origin text NOT NULL,
                holder text NOT NULL,
                expires_at double precision NOT NULL
            )
            """,
            "CREATE INDEX courier_limits_leases_origin ON courier_limits_leases (origin)",
            """
            CREATE FUNCTION courier_limits_released() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('courier_limits', OLD.origin);
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER courier_limits_released AFTER DELETE ON courier_limits_leases
            FOR EACH ROW EXECUTE FUNCTION courier_limits_released()
            """,
            // A lease (and no wait), or no lease and how long to wait: the pause or the next
            // token, in seconds; NULL when every share is taken (wait for a release). Times are
            // the server's, so that hosts whose clocks differ agree, and are read once the
            // origin's row is held: a time read before waiting for the lock would be older than
            // the refill another caller wrote meanwhile, and would move it back, counting the
            // wait's tokens twice.
            """
            CREATE FUNCTION courier_limits_acquire(
                p_origin text, p_holder text, p_concurrency bigint, p_rate double precision, p_burst double precision,
                p_lease double precision
            ) RETURNS TABLE (lease bigint, wait double precision) LANGUAGE plpgsql AS $$
            DECLARE
                present double precision;
                state courier_limits_origins%ROWTYPE;
                held integer;
                available double precision;
            BEGIN
                INSERT INTO courier_limits_origins (origin) VALUES (p_origin) ON CONFLICT (origin) DO NOTHING;
                SELECT * INTO state FROM courier_limits_origins WHERE origin = p_origin FOR UPDATE;
                present := extract(epoch FROM clock_timestamp());
                IF state.paused_until > present THEN
                    RETURN QUERY SELECT NULL::bigint, state.paused_until - present;
                    RETURN;
                END IF;
                IF state.resets_at IS NOT NULL AND state.resets_at <= present THEN
                    state.remaining := state.quota;
                    state.resets_at := CASE WHEN state.quota IS NOT NULL AND state.quota_window IS NOT NULL
                        THEN present + state.quota_window END;
                    UPDATE courier_limits_origins SET remaining = state.remaining, resets_at = state.resets_at WHERE origin = p_origin;
                END IF;
                IF state.remaining IS NOT NULL AND state.remaining <= 0 THEN
                    RETURN QUERY SELECT NULL::bigint, coalesce(state.resets_at - present, 1.0);
                    RETURN;
                END IF;
                IF p_rate IS NOT NULL THEN
                    available := least(p_burst, coalesce(state.tokens, p_burst) + greatest(0, present - coalesce(state.refilled_at, present)) * p_rate);
                    IF available < 1 THEN
                        UPDATE courier_limits_origins SET tokens = available, refilled_at = present WHERE origin = p_origin;
                        RETURN QUERY SELECT NULL::bigint, (1 - available) / p_rate;
                        RETURN;
                    END IF;
                END IF;
                DELETE FROM courier_limits_leases WHERE origin = p_origin AND expires_at < present;
                SELECT count(*) INTO held FROM courier_limits_leases WHERE origin = p_origin;
                IF held >= p_concurrency THEN
                    RETURN QUERY SELECT NULL::bigint, NULL::double precision;
                    RETURN;
                END IF;
                UPDATE courier_limits_origins SET
                    tokens = CASE WHEN available IS NULL THEN state.tokens ELSE available - 1 END,
                    refilled_at = CASE WHEN available IS NULL THEN state.refilled_at ELSE present END,
                    remaining = state.remaining - 1
                WHERE origin = p_origin;
                RETURN QUERY INSERT INTO courier_limits_leases (origin, holder, expires_at)
                    VALUES (p_origin, p_holder, present + p_lease) RETURNING id, 0::double precision;
            END
            $$
            """,
            // What a response said: a pause (never shortened by a later, shorter one), and the
            // quota left, its reset and the policy, each kept when not given.
            """
            CREATE FUNCTION courier_limits_record(
                p_origin text, p_pause double precision, p_remaining bigint, p_reset double precision, p_quota bigint,
                p_window double precision
            ) RETURNS void LANGUAGE plpgsql AS $$
            DECLARE
                present double precision;
            BEGIN
                INSERT INTO courier_limits_origins (origin) VALUES (p_origin) ON CONFLICT (origin) DO NOTHING;
                PERFORM 1 FROM courier_limits_origins WHERE origin = p_origin FOR UPDATE;
                present := extract(epoch FROM clock_timestamp());
                UPDATE courier_limits_origins SET
                    paused_until = CASE WHEN p_pause IS NULL THEN paused_until ELSE greatest(paused_until, present + p_pause) END,
                    remaining = CASE WHEN p_remaining IS NULL THEN remaining ELSE p_remaining END,
                    resets_at = CASE WHEN p_remaining IS NULL THEN resets_at ELSE present + coalesce(p_reset, p_window, 1) END,
                    quota = coalesce(p_quota, quota),
                    quota_window = coalesce(p_window, quota_window)
                WHERE origin = p_origin;
            END
            $$
            """,
        ]
    ]
}
