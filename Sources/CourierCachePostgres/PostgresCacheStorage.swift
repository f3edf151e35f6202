import Courier
import CourierPostgres
import Foundation
import Logging

/// A cache store in a PostgreSQL database, shared by every process that opens the same one, on
/// any number of hosts.
///
/// ```swift
/// let storage = try PostgresCacheStorage(url: URL(string: "postgres://app@db.internal/app")!, maximumBytes: 1 << 30)
/// var configuration = ClientConfiguration()
/// configuration.cache = CacheConfiguration(storage: storage)
/// ```
///
/// - A response stored by one process is a hit for all of them; a removal (an unsafe request's
///   invalidation, a `cache clear`) is seen by all of them at once, since every read asks the
///   database.
/// - ``maximumBytes`` bounds the bytes of every entry together, whichever process wrote them:
///   after a store that passes it, the least recently stored or read entries are removed until
///   nine tenths of it remain. Give every process the same bound; each enforces its own.
/// - Bodies are kept in rows of 512 KiB, and each entry carries its body's length and SHA-256,
///   checked on every read: an entry that does not read back intact is a miss, and is removed.
///   Two processes storing the same key at once leave one whole entry, the last one's.
/// - The tables (`courier_cache_entries`, `courier_cache_chunks`, `courier_cache_totals`,
///   `courier_cache_schema`) are created on first use, and migrated under a lock.
///
/// The database is reached on first use, not here. While it cannot be reached, every call
/// throws ``CourierError/Kind/cacheStorageFailed`` at once (the client then treats the request
/// as a miss and goes to the network, and stores nothing), the outage is reported once to
/// `onAvailabilityChange`, and the store tries the server in the background until it answers,
/// which is reported too. Nothing the store served before is served from memory meanwhile.
///
/// With `memoryBytes` above zero, recently read keys are kept in memory too. That tier listens
/// on the channel `courier_cache`, which the tables notify whenever an entry is written or
/// removed by any process: a change made elsewhere clears the key here as soon as its
/// notification arrives (milliseconds on a healthy network), a read that overlapped a
/// notification is not kept, and while no connection listens the tier is emptied and not read.
/// Without it (the default) every read asks the database.
///
/// For RFC 9111's shared-cache rules (`s-maxage`, `private`, `Authorization`), set
/// ``CacheConfiguration/isShared``; otherwise the cache stays private to each credential, as
/// any cache does, and processes that send the same credentials share its entries.
public struct PostgresCacheStorage: CacheStorage {
    /// Whether the database answers.
    public enum Availability: Sendable, Hashable {
        /// It answers again after an outage.
        case available
        /// It cannot be reached, for `reason`; the cache is skipped until it answers.
        case unavailable(reason: String)
    }

    /// 1 GiB, the default bound.
    public static let defaultMaximumBytes = 1 << 30

    /// The database's URL without its password.
    public let location: String
    /// The most bytes the entries may take in all; entries larger than this are not kept.
    public let maximumBytes: Int
    /// The most bytes the memory tier keeps; 0 when there is none.
    public let memoryBytes: Int

    private let database: SharedDatabase
    private let recent: RecentEntries?
    private let listener: ChannelListener?

    /// A store in the database at `url` (`postgres://user:password@host:5432/database`, with
    /// `?sslmode=disable`, `prefer` (the default) or `require`, and `connect_timeout=SECONDS`,
    /// which bounds opening: 15 seconds unless set). Nothing is connected until first use.
    ///
    /// - Parameters:
    ///   - maximumBytes: the bound on every entry together, shared by every process.
    ///   - memoryBytes: the bound of a memory tier in this process; 0, the default, for none.
    ///   - statementTimeout: how long one statement may take before the database counts as
    ///     unreachable; 5 seconds by default, and one more second for each MiB a store writes.
    ///   - logger: where outages are logged (a warning, then a notice when it ends).
    ///   - onAvailabilityChange: called once when an outage begins and once when it ends, for
    ///     a program that shows it (the `courier` tool writes one line on stderr).
    /// - Throws: ``CourierError/Kind/invalidConfiguration`` for a URL that is not a
    ///   `postgres://` URL or sets another parameter, or a bound that is not positive.
    public init(
        url: URL, maximumBytes: Int = PostgresCacheStorage.defaultMaximumBytes, memoryBytes: Int = 0,
        statementTimeout: Duration = .seconds(5), logger: Logger = Logger(label: "courier.cache.postgres", factory: { _ in SwiftLogNoOpLogHandler() }),
        onAvailabilityChange: @escaping @Sendable (Availability) -> Void = { _ in }
    ) throws(CourierError) {
        guard maximumBytes > 0 else {
            throw CourierError(.invalidConfiguration, "A PostgreSQL cache needs a positive maximumBytes; \(maximumBytes) was given.")
        }
        guard memoryBytes >= 0 else {
            throw CourierError(.invalidConfiguration, "memoryBytes is 0 (no memory tier) or more; \(memoryBytes) was given.")
        }
        guard statementTimeout > .zero else {
            throw CourierError(.invalidConfiguration, "A statement timeout must be positive; \(statementTimeout) was given.")
        }
        let target = try PostgresLocation(url, purpose: "cache")
        self.location = target.redacted
        self.maximumBytes = maximumBytes
        self.memoryBytes = memoryBytes
        self.database = SharedDatabase(
            location: target, schema: CacheSchema.tables, failureKind: .cacheStorageFailed, statementTimeout: statementTimeout, logger: logger,
            report: { reason in onAvailabilityChange(reason.map { .unavailable(reason: $0) } ?? .available) }
        )
        if memoryBytes > 0 {
            let recent = RecentEntries(maximumBytes: memoryBytes)
            self.recent = recent
            self.listener = ChangeListener.start(location: target, recent: recent, logger: logger)
        } else {
            self.recent = nil
            self.listener = nil
        }
    }

    public func entries(forKey key: String) async throws -> [CourierCacheEntry] {
        let keyHash = CacheRows.hash(key)
        if let kept = recent?.entries(forKeyHash: keyHash) { return kept }
        let changes = recent?.changeCount
        let (entries, damaged) = try await database.perform("be read") { client, logger in
            try await CacheRows.entries(forKey: key, keyHash: keyHash, now: Date(), client: client, logger: logger)
        }
        for variantHash in damaged {
            try? await database.perform("remove a damaged entry") { client, logger in
                try await CacheRows.remove(keyHash: keyHash, variantHash: variantHash, client: client, logger: logger)
            }
        }
        if let changes, damaged.isEmpty { recent?.keep(entries, forKeyHash: keyHash, ifUnchangedSince: changes) }
        return entries
    }

    public func store(_ entry: CourierCacheEntry) async throws {
        let keyHash = CacheRows.hash(entry.key)
        recent?.forget(keyHash: keyHash)
        guard entry.cost <= maximumBytes else {
            // Too large to keep: what was stored for the key and variant is older, so it goes.
            try await removeEntry(forKey: entry.key, variant: entry.variant)
            return
        }
        // A large body takes one more second per MiB, so that a slow link is not taken for an outage.
        let total = try await database.perform("store an entry", allowing: .seconds(entry.body.count >> 20)) { client, logger in
            try await CacheRows.store(entry, keyHash: keyHash, now: Date(), client: client, logger: logger)
        }
        guard total > maximumBytes else { return }
        let target = Int64(maximumBytes / 10 * 9)
        try await database.perform("evict entries") { client, logger in
            try await CacheRows.evict(downTo: target, client: client, logger: logger)
        }
    }

    public func removeEntry(forKey key: String, variant: String) async throws {
        let (keyHash, variantHash) = (CacheRows.hash(key), CacheRows.hash(variant))
        recent?.forget(keyHash: keyHash)
        try await database.perform("remove an entry") { client, logger in
            try await CacheRows.remove(keyHash: keyHash, variantHash: variantHash, client: client, logger: logger)
        }
    }

    public func removeEntries(forKey key: String) async throws {
        let keyHash = CacheRows.hash(key)
        recent?.forget(keyHash: keyHash)
        try await database.perform("remove entries") { client, logger in
            try await CacheRows.removeAll(keyHash: keyHash, client: client, logger: logger)
        }
    }

    public func removeAll() async throws {
        recent?.forgetAll()
        try await database.perform("remove every entry") { client, logger in
            try await CacheRows.removeEverything(client: client, logger: logger)
        }
    }

    /// The entries and their bytes, as every process's writes left them.
    public func statistics() async throws -> CacheStatistics {
        try await database.perform("count the entries") { client, logger in
            try await CacheRows.statistics(client: client, logger: logger)
        }
    }

    /// Whether the memory tier holds `key` (for tests).
    func keepsInMemory(forKey key: String) -> Bool {
        recent?.entries(forKeyHash: CacheRows.hash(key)) != nil
    }

    /// Closes the connections once the statements already running have finished; the store
    /// throws ``CourierError/Kind/clientShutdown`` from then on. A store that is dropped
    /// without it closes them too, later.
    public func shutdown() async {
        listener?.stop()
        await database.shutdown()
    }
}
