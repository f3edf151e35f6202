import Foundation
import Testing

@testable import Courier

@Suite("Cache: the memory store")
struct MemoryCacheStorageTests {
    static func entry(_ key: String, variant: String = "", bytes: Int) -> CourierCacheEntry {
        let date = Date(timeIntervalSince1970: 0)
        return CourierCacheEntry(key: key, variant: variant, status: 200, headers: Headers(), body: Data(count: bytes), requestDate: date, responseDate: date)
    }

    @Test func variantsOfAKeyComeBackMostRecentlyStoredFirst() async throws {
        let storage = MemoryCacheStorage()
        try await storage.store(Self.entry("k", variant: "a", bytes: 1))
        try await storage.store(Self.entry("k", variant: "b", bytes: 1))
        try await storage.store(Self.entry("other", bytes: 1))
        #expect(try await storage.entries(forKey: "k").map(\.variant) == ["b", "a"])
        try await storage.store(Self.entry("k", variant: "a", bytes: 2))
        #expect(try await storage.entries(forKey: "k").map(\.variant) == ["a", "b"])
        try await storage.removeEntry(forKey: "k", variant: "a")
        #expect(try await storage.entries(forKey: "k").map(\.variant) == ["b"])
        try await storage.removeEntries(forKey: "k")
        #expect(try await storage.entries(forKey: "k").isEmpty)
        #expect(try await storage.statistics() == CacheStatistics(entryCount: 1, totalBytes: Self.entry("other", bytes: 1).cost))
    }

    @Test func theLeastRecentlyUsedEntriesAreEvictedFirst() async throws {
        let cost = Self.entry("a", bytes: 100).cost
        let storage = MemoryCacheStorage(maximumBytes: cost * 3)
        for key in ["a", "b", "c"] { try await storage.store(Self.entry(key, bytes: 100)) }
        _ = try await storage.entries(forKey: "a")
        try await storage.store(Self.entry("d", bytes: 100))
        #expect(try await storage.entries(forKey: "b").isEmpty)
        for key in ["a", "c", "d"] { #expect(try await storage.entries(forKey: key).count == 1) }
        #expect(try await storage.statistics() == CacheStatistics(entryCount: 3, totalBytes: cost * 3))
    }

    @Test func anEntryLargerThanTheStoreIsNotKept() async throws {
        let storage = MemoryCacheStorage(maximumBytes: 1000)
        try await storage.store(Self.entry("small", bytes: 10))
        try await storage.store(Self.entry("huge", bytes: 2000))
        #expect(try await storage.entries(forKey: "huge").isEmpty)
        #expect(try await storage.entries(forKey: "small").count == 1)
    }

    @Test func theTotalNeverExceedsTheBound() async throws {
        let storage = MemoryCacheStorage(maximumBytes: 10_000)
        for index in 0..<200 {
            try await storage.store(Self.entry("k\(index % 37)", variant: "\(index % 3)", bytes: (index * 7919) % 900))
            #expect(try await storage.statistics().totalBytes <= 10_000)
        }
        try await storage.removeAll()
        #expect(try await storage.statistics() == CacheStatistics(entryCount: 0, totalBytes: 0))
    }
}
