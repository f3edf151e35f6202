import NIOConcurrencyHelpers

/// A cache store in memory, bounded by the bytes its entries take (``CourierCacheEntry/cost``):
/// when it is full, the least recently used entries go first.
///
/// Reading an entry counts as using it. An entry larger than the whole store is not kept.
public final class MemoryCacheStorage: CacheStorage {
    /// The most bytes the entries may take together.
    public let maximumBytes: Int
    private let state: NIOLockedValueBox<LRUEntries>

    /// The default bound: 64 MiB.
    public static let defaultMaximumBytes = 64 * 1024 * 1024

    /// An empty store that holds at most `maximumBytes`.
    public init(maximumBytes: Int = MemoryCacheStorage.defaultMaximumBytes) {
        self.maximumBytes = maximumBytes
        self.state = NIOLockedValueBox(LRUEntries())
    }

    /// Every stored variant for `key`, most recently stored first; reading counts as using them.
    public func entries(forKey key: String) async throws -> [CourierCacheEntry] {
        state.withLockedValue { $0.entries(forKey: key) }
    }

    /// Stores `entry` as the most recently used, evicting the least recently used entries
    /// until the total fits; an entry larger than the store is not kept.
    public func store(_ entry: CourierCacheEntry) async throws {
        let limit = maximumBytes
        state.withLockedValue { entries in
            entries.remove(key: entry.key, variant: entry.variant)
            guard entry.cost <= limit else { return }
            entries.insert(entry)
            entries.evict(downTo: limit)
        }
    }

    /// Removes the entry with `key` and `variant`, if there is one.
    public func removeEntry(forKey key: String, variant: String) async throws {
        state.withLockedValue { $0.remove(key: key, variant: variant) }
    }

    /// Removes every variant stored for `key`.
    public func removeEntries(forKey key: String) async throws {
        state.withLockedValue { entries in
            for variant in entries.variants(forKey: key) { entries.remove(key: key, variant: variant) }
        }
    }

    /// Removes every entry.
    public func removeAll() async throws {
        state.withLockedValue { $0 = LRUEntries() }
    }

    /// How many entries the store holds and the bytes they take.
    public func statistics() async throws -> CacheStatistics {
        state.withLockedValue { CacheStatistics(entryCount: $0.count, totalBytes: $0.totalBytes) }
    }
}

/// Entries in a doubly linked list from most to least recently used, with an index by key.
struct LRUEntries {
    private struct Slot: Hashable {
        var key: String
        var variant: String
    }

    private struct Node {
        var entry: CourierCacheEntry
        var stored: UInt64
        var newer: Slot?
        var older: Slot?
    }

    private var nodes: [Slot: Node] = [:]
    private var variantsByKey: [String: Set<String>] = [:]
    private var newest: Slot?
    private var oldest: Slot?
    private var stores: UInt64 = 0
    private(set) var totalBytes = 0

    /// The number of entries.
    var count: Int { nodes.count }

    /// The variants stored for `key`.
    func variants(forKey key: String) -> Set<String> { variantsByKey[key] ?? [] }

    /// Every entry for `key`, most recently stored first; each becomes the most recently used.
    mutating func entries(forKey key: String) -> [CourierCacheEntry] {
        guard let variants = variantsByKey[key] else { return [] }
        if variants.count == 1, let variant = variants.first {
            let slot = Slot(key: key, variant: variant)
            touch(slot)
            return nodes[slot].map { [$0.entry] } ?? []
        }
        let slots = variants.map { Slot(key: key, variant: $0) }
        for slot in slots { touch(slot) }
        return slots.compactMap { nodes[$0] }.sorted { $0.stored > $1.stored }.map(\.entry)
    }

    /// Adds an entry as the most recently used; its key and variant must not be present.
    mutating func insert(_ entry: CourierCacheEntry) {
        let slot = Slot(key: entry.key, variant: entry.variant)
        stores += 1
        nodes[slot] = Node(entry: entry, stored: stores, newer: nil, older: newest)
        if let newest { nodes[newest]?.newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
        variantsByKey[entry.key, default: []].insert(entry.variant)
        totalBytes += entry.cost
    }

    /// Removes the entry with `key` and `variant`, if present.
    mutating func remove(key: String, variant: String) {
        let slot = Slot(key: key, variant: variant)
        guard let node = nodes.removeValue(forKey: slot) else { return }
        unlink(node, at: slot)
        variantsByKey[key]?.remove(variant)
        if variantsByKey[key]?.isEmpty == true { variantsByKey[key] = nil }
        totalBytes -= node.entry.cost
    }

    /// Removes least recently used entries until the total is at most `limit`.
    mutating func evict(downTo limit: Int) {
        while totalBytes > limit, let victim = oldest {
            remove(key: victim.key, variant: victim.variant)
        }
    }

    private mutating func touch(_ slot: Slot) {
        guard newest != slot, let node = nodes[slot] else { return }
        unlink(node, at: slot)
        nodes[slot]?.newer = nil
        nodes[slot]?.older = newest
        if let newest { nodes[newest]?.newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }

    private mutating func unlink(_ node: Node, at slot: Slot) {
        if let newer = node.newer { nodes[newer]?.older = node.older } else if newest == slot { newest = node.older }
        if let older = node.older { nodes[older]?.newer = node.newer } else if oldest == slot { oldest = node.newer }
    }
}
