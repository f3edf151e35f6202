import Courier
import Foundation
import Testing

/// A plain store for the tiered tests: a dictionary, counting reads.
actor DictionaryStorage: CacheStorage {
    private var stored: [String: [CourierCacheEntry]] = [:]
    private(set) var reads = 0

    func entries(forKey key: String) -> [CourierCacheEntry] {
        reads += 1
        return stored[key] ?? []
    }

    func store(_ entry: CourierCacheEntry) {
        stored[entry.key, default: []].removeAll { $0.variant == entry.variant }
        stored[entry.key, default: []].insert(entry, at: 0)
    }

    func removeEntry(forKey key: String, variant: String) {
        stored[key]?.removeAll { $0.variant == variant }
    }

    func removeEntries(forKey key: String) {
        stored[key] = nil
    }

    func removeAll() {
        stored = [:]
    }

    func statistics() -> CacheStatistics {
        let entries = stored.values.flatMap { $0 }
        return CacheStatistics(entryCount: entries.count, totalBytes: entries.reduce(0) { $0 + $1.cost })
    }
}

@Suite("Tiered cache storage")
struct TieredCacheStorageTests {
    /// Runs `body` with a dictionary in front of a disk cache, and two variants of one key.
    private func withTiers(
        _ body: (TieredCacheStorage, DictionaryStorage, DiskCacheStorage, CourierCacheEntry, CourierCacheEntry) async throws -> Void
    ) async throws {
        try await withDiskCache { disk, _ in
            let memory = DictionaryStorage()
            let older = sampleEntry(key: "a", variant: "x")
            let newer = sampleEntry(key: "a", variant: "y", serial: 2)
            try await body(TieredCacheStorage(front: memory, back: disk), memory, disk, older, newer)
        }
    }

    @Test func writesAndRemovalsGoToBothTiers() async throws {
        try await withTiers { tiers, memory, disk, first, second in
            try await tiers.store(first)
            try await tiers.store(second)
            try await tiers.store(sampleEntry(key: "b"))
            #expect(await memory.entries(forKey: "a") == [second, first])
            #expect(try await disk.entries(forKey: "a") == [second, first])

            try await tiers.removeEntry(forKey: "a", variant: "x")
            #expect(await memory.entries(forKey: "a") == [second])
            #expect(try await disk.entries(forKey: "a") == [second])
            try await tiers.removeEntries(forKey: "a")
            #expect(await memory.entries(forKey: "a").isEmpty)
            #expect(try await disk.entries(forKey: "a").isEmpty)
            try await tiers.removeAll()
            #expect(await memory.statistics().entryCount == 0)
            #expect(try await tiers.statistics().entryCount == 0)
        }
    }

    @Test func readsTryTheFrontFirstAndPromoteHitsFromTheBack() async throws {
        try await withTiers { tiers, memory, disk, older, newer in
            try await disk.store(older)
            try await disk.store(newer)

            #expect(try await tiers.entries(forKey: "a") == [newer, older], "the back tier answers a front miss")
            #expect(await memory.entries(forKey: "a") == [newer, older], "and its entries are promoted, in order")

            let onlyInFront = sampleEntry(key: "front", serial: 3)
            await memory.store(onlyInFront)
            let readsBefore = await memory.reads
            #expect(try await tiers.entries(forKey: "front") == [onlyInFront])
            #expect(await memory.reads == readsBefore + 1)
            #expect(try await disk.entries(forKey: "front").isEmpty, "the entry lives in the front tier only")
        }
    }
}
