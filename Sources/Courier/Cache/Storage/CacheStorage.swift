/// Where a cache keeps its entries: in memory, on disk, or in a store of your own.
///
/// Entries are filed under a primary key and a variant (see ``CourierCacheEntry``); a primary key
/// may hold several variants at once. A store decides what to evict when it is full and must
/// never hand back an entry other than one it was given: an entry it cannot read back intact
/// is a miss, and the store removes it.
///
/// Every method may be called concurrently from many tasks.
public protocol CacheStorage: Sendable {
    /// Every stored variant for `key`, most recently stored first; empty when there is none.
    func entries(forKey key: String) async throws -> [CourierCacheEntry]
    /// Stores `entry`, replacing the one with the same key and variant.
    func store(_ entry: CourierCacheEntry) async throws
    /// Removes the entry with `key` and `variant`, if there is one.
    func removeEntry(forKey key: String, variant: String) async throws
    /// Removes every variant stored for `key`.
    func removeEntries(forKey key: String) async throws
    /// Removes every entry.
    func removeAll() async throws
    /// How many entries the store holds and how many bytes they take.
    func statistics() async throws -> CacheStatistics
    /// What the store found open to other users when it was opened (a folder others may
    /// read, say), one sentence each; a client logs them as warnings when it starts. Empty by
    /// default.
    var permissionWarnings: [String] { get }
}

extension CacheStorage {
    /// None.
    public var permissionWarnings: [String] { [] }
}

/// The size of a cache store.
public struct CacheStatistics: Sendable, Hashable, Codable {
    /// The number of entries.
    public var entryCount: Int
    /// The bytes the entries take, as the store counts them.
    public var totalBytes: Int

    /// Creates statistics.
    public init(entryCount: Int, totalBytes: Int) {
        self.entryCount = entryCount
        self.totalBytes = totalBytes
    }
}
