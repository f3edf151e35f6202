import Courier
import CourierPostgres
import Crypto
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The statements that read and write entries, and how an entry is laid out in rows.
enum CacheRows {
    /// The most body bytes one row of `courier_cache_chunks` holds: 512 KiB.
    static let chunkBytes = 512 * 1024

    /// The advisory lock of the evictor, so that processes do not evict together.
    static let evictionLock: Int64 = 0x636F_7572_6576_6963

    /// The SHA-256 of `text`.
    static func hash(_ text: String) -> Data {
        Data(SHA256.hash(data: Data(text.utf8)))
    }

    /// The lower-case hexadecimal form of `bytes`, as notifications carry key hashes.
    static func hex(_ bytes: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The advisory lock taken while the entries of the key with `keyHash` are replaced.
    static func lock(for keyHash: Data) -> Int64 {
        keyHash.prefix(8).reduce(Int64(0)) { ($0 << 8) | Int64($1) }
    }

    // MARK: Reading

    /// The stored variants of `key` (whose SHA-256 is `keyHash`), most recently stored first; the entries' last use is
    /// moved to `now` (at most once a second each). Rows that cannot be read back intact are
    /// returned in `damaged`, for removal.
    static func entries(
        forKey key: String, keyHash: Data, now: Date, client: PostgresClient, logger: Logger
    ) async throws -> (entries: [CourierCacheEntry], damaged: [Data]) {
        let rows = try await client.execute(ReadStatement(keyHash: keyHash, now: now), logger: logger)
        var entries: [CourierCacheEntry] = []
        var damaged: [Data] = []
        var current: Assembly?
        func finish() {
            guard let assembly = current else { return }
            if let entry = assembly.entry(key: key) { entries.append(entry) } else { damaged.append(assembly.variantHash) }
            current = nil
        }
        for try await row in rows {
            let (variantHash, generation, fields, length, digest, position, bytes) = try row.decode(
                (ByteBuffer, Int64, ByteBuffer, Int64, ByteBuffer, Int32?, ByteBuffer?).self
            )
            if current?.generation != generation {
                finish()
                current = Assembly(
                    variantHash: Data(variantHash.readableBytesView), generation: generation, fields: fields, length: length,
                    digest: Data(digest.readableBytesView)
                )
            }
            current?.append(position: position, bytes: bytes)
        }
        finish()
        return (entries, damaged)
    }

    /// The read of a key's entries with their chunks, prepared once on each connection: the
    /// entries' last use moves to now when it is more than a second old.
    struct ReadStatement: RowStatement {
        static let name = "courier_cache_read_1"
        static let sql = """
            WITH touched AS (
                UPDATE courier_cache_entries SET used_at = $2 WHERE key_hash = $1 AND used_at < $2 - 1
            )
            SELECT e.variant_hash, e.generation, e.fields, e.body_length, e.body_digest, c.position, c.bytes
            FROM courier_cache_entries e LEFT JOIN courier_cache_chunks c ON c.generation = e.generation
            WHERE e.key_hash = $1
            ORDER BY e.stored_at DESC, e.generation DESC, c.position
            """
        static let bindingDataTypes: [PostgresDataType] = [.bytea, .float8]

        let bindings: PostgresBindings

        init(keyHash: Data, now: Date) {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(ByteBuffer(bytes: keyHash))
            bindings.append(now.timeIntervalSince1970)
            self.bindings = bindings
        }
    }

    /// One entry's row and its chunks, put together as they arrive.
    private struct Assembly {
        var variantHash: Data
        var generation: Int64
        var fields: ByteBuffer
        var length: Int64
        var digest: Data
        var body = Data()
        var nextPosition: Int32 = 0
        var isBroken = false

        mutating func append(position: Int32?, bytes: ByteBuffer?) {
            guard let position, let bytes else { return }
            guard position == nextPosition, Int64(body.count) + Int64(bytes.readableBytes) <= length else {
                isBroken = true
                return
            }
            body.append(contentsOf: bytes.readableBytesView)
            nextPosition += 1
        }

        /// The entry, when the body is whole and unaltered and the fields are of `key`.
        func entry(key: String) -> CourierCacheEntry? {
            guard !isBroken, Int64(body.count) == length, Data(SHA256.hash(data: body)) == digest,
                var entry = try? JSONDecoder().decode(CourierCacheEntry.self, from: Data(fields.readableBytesView)),
                entry.key == key, CacheRows.hash(entry.variant) == variantHash
            else { return nil }
            entry.body = body
            return entry
        }
    }

    // MARK: Writing

    /// Stores `entry` in one transaction, replacing the entry with its key and variant, and
    /// returns the bytes all entries take afterwards.
    ///
    /// The body's chunks are written first; the entry row goes in last, under an advisory lock
    /// for its key, so that writers of the same key one after the other leave the last one's
    /// entry and nothing of the other's.
    static func store(_ entry: CourierCacheEntry, keyHash: Data, now: Date, client: PostgresClient, logger: Logger) async throws -> Int64 {
        var fields = entry
        fields.body = Data()
        let encoded = try JSONEncoder().encode(fields)
        let variantHash = hash(entry.variant)
        let digest = Data(SHA256.hash(data: entry.body))
        let time = now.timeIntervalSince1970
        let cost = Int64(entry.cost)
        let length = Int64(entry.body.count)
        let body = entry.body
        let lock = lock(for: keyHash)
        return try await client.withTransaction(logger: logger) { connection in
            let generation =
                try await connection.query("SELECT nextval('courier_cache_generations')", logger: logger)
                .collect().first?.decode(Int64.self) ?? 0
            var offset = body.startIndex
            var position: Int32 = 0
            while offset < body.endIndex {
                let end = body.index(offset, offsetBy: chunkBytes, limitedBy: body.endIndex) ?? body.endIndex
                let chunk = body[offset..<end]
                _ = try await connection.query(
                    "INSERT INTO courier_cache_chunks (generation, position, bytes) VALUES (\(generation), \(position), \(Data(chunk)))",
                    logger: logger
                ).collect()
                offset = end
                position += 1
            }
            _ = try await connection.query("SELECT pg_advisory_xact_lock(\(lock))", logger: logger).collect()
            _ = try await connection.query(
                "DELETE FROM courier_cache_entries WHERE key_hash = \(keyHash) AND variant_hash = \(variantHash)", logger: logger
            ).collect()
            _ = try await connection.query(
                """
                INSERT INTO courier_cache_entries
                    (key_hash, variant_hash, generation, fields, body_length, body_digest, cost, stored_at, used_at)
                VALUES (\(keyHash), \(variantHash), \(generation), \(encoded), \(length), \(digest), \(cost), \(time), \(time))
                """,
                logger: logger
            ).collect()
            return try await connection.query("SELECT total_bytes FROM courier_cache_totals WHERE id = 1", logger: logger)
                .collect().first?.decode(Int64.self) ?? 0
        }
    }

    /// Removes the least recently used entries until at most `target` bytes remain, unless
    /// another process is doing it already.
    static func evict(downTo target: Int64, client: PostgresClient, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { connection in
            let locked =
                try await connection.query("SELECT pg_try_advisory_xact_lock(\(evictionLock))", logger: logger)
                .collect().first?.decode(Bool.self) ?? false
            guard locked else { return }
            _ = try await connection.query(
                """
                DELETE FROM courier_cache_entries e USING (
                    SELECT ranked.key_hash, ranked.variant_hash FROM (
                        SELECT key_hash, variant_hash,
                            sum(cost) OVER (ORDER BY used_at, generation ROWS UNBOUNDED PRECEDING) - cost AS before
                        FROM courier_cache_entries
                    ) ranked, courier_cache_totals t
                    WHERE t.id = 1 AND ranked.before < t.total_bytes - \(target)
                ) victims
                WHERE e.key_hash = victims.key_hash AND e.variant_hash = victims.variant_hash
                """,
                logger: logger
            ).collect()
        }
    }

    /// Removes the entry whose key and variant have the hashes `keyHash` and `variantHash`.
    static func remove(keyHash: Data, variantHash: Data, client: PostgresClient, logger: Logger) async throws {
        _ = try await client.query(
            "DELETE FROM courier_cache_entries WHERE key_hash = \(keyHash) AND variant_hash = \(variantHash)", logger: logger
        ).collect()
    }

    /// Removes every variant of the key whose hash is `keyHash`.
    static func removeAll(keyHash: Data, client: PostgresClient, logger: Logger) async throws {
        _ = try await client.query("DELETE FROM courier_cache_entries WHERE key_hash = \(keyHash)", logger: logger).collect()
    }

    /// Removes every entry, and notifies `*`.
    static func removeEverything(client: PostgresClient, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { connection in
            _ = try await connection.query("TRUNCATE courier_cache_chunks, courier_cache_entries", logger: logger).collect()
            _ = try await connection.query("UPDATE courier_cache_totals SET entry_count = 0, total_bytes = 0 WHERE id = 1", logger: logger).collect()
            _ = try await connection.query("SELECT pg_notify('courier_cache', '*')", logger: logger).collect()
        }
    }

    /// The entry count and the bytes, as the trigger keeps them.
    static func statistics(client: PostgresClient, logger: Logger) async throws -> CacheStatistics {
        let row = try await client.query("SELECT entry_count, total_bytes FROM courier_cache_totals WHERE id = 1", logger: logger)
            .collect().first
        guard let row else { return CacheStatistics(entryCount: 0, totalBytes: 0) }
        let (count, bytes) = try row.decode((Int64, Int64).self)
        return CacheStatistics(entryCount: Int(count), totalBytes: Int(bytes))
    }
}
