/// Two cache stores in tiers: a fast one in front (usually memory) and a larger one behind
/// it (usually disk).
///
/// ```swift
/// let storage = TieredCacheStorage(front: memory, back: try DiskCacheStorage(directory: folder))
/// ```
///
/// Reads try the front store first; when it has nothing for a key, the back store's entries
/// are returned and copied into the front store. Writes and removals go to both stores.
/// ``statistics()`` describes the back store, which holds everything that was written.
public struct TieredCacheStorage: CacheStorage {
    /// The store read first.
    public let front: any CacheStorage
    /// The store read when the front one has nothing for a key.
    public let back: any CacheStorage

    /// Creates tiers of `front` over `back`.
    public init(front: any CacheStorage, back: any CacheStorage) {
        self.front = front
        self.back = back
    }

    public func entries(forKey key: String) async throws -> [CourierCacheEntry] {
        let near = try await front.entries(forKey: key)
        guard near.isEmpty else { return near }
        let far = try await back.entries(forKey: key)
        // Oldest first, so that the front store keeps the back store's order.
        for entry in far.reversed() { try await front.store(entry) }
        return far
    }

    public func store(_ entry: CourierCacheEntry) async throws {
        try await both { try await $0.store(entry) }
    }

    public func removeEntry(forKey key: String, variant: String) async throws {
        try await both { try await $0.removeEntry(forKey: key, variant: variant) }
    }

    public func removeEntries(forKey key: String) async throws {
        try await both { try await $0.removeEntries(forKey: key) }
    }

    public func removeAll() async throws {
        try await both { try await $0.removeAll() }
    }

    public func statistics() async throws -> CacheStatistics {
        try await back.statistics()
    }

    /// The front store's warnings, then the back store's.
    public var permissionWarnings: [String] { front.permissionWarnings + back.permissionWarnings }

    /// Runs `operation` on both stores at once; throws the first failure.
    private func both(_ operation: @escaping @Sendable (any CacheStorage) async throws -> Void) async throws {
        async let near: Void = operation(front)
        try await operation(back)
        try await near
    }
}
