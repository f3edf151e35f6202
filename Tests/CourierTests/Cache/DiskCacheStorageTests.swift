import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Disk cache storage")
struct DiskCacheStorageTests {
    /// Like `mkdir -p`: a cache in `~/.cache/my-app` works where `~/.cache` does not exist yet,
    /// and the folders made on the way are the owner's alone; a path that cannot be made is a
    /// typed error that names it.
    @Test func missingParentFoldersAreMadeForTheOwnerAlone() async throws {
        try await withTemporaryFolder { base in
            let folder = base.appendingPathComponent("home/.cache/my-app")
            let storage = try DiskCacheStorage(directory: folder)
            try await storage.store(sampleEntry(key: "https://example.test/a"))
            #expect(try await storage.entries(forKey: "https://example.test/a").count == 1)
            for made in ["home", "home/.cache", "home/.cache/my-app"] {
                #expect(modeBits(base.appendingPathComponent(made).path) == 0o700, "\(made)")
            }
            let blocker = base.appendingPathComponent("file")
            try Data("x".utf8).write(to: blocker)
            let error = await courierError { _ = try DiskCacheStorage(directory: blocker.appendingPathComponent("below/cache")) }
            #expect(error?.kind == .cacheStorageFailed)
            #expect(error?.message.contains(blocker.path) == true, "\(error?.message ?? "")")
        }
    }

    @Test func storesAndReadsBackSeveralVariantsNewestFirst() async throws {
        try await withDiskCache { storage, folder in
            let key = "https://example.test/search?q=a"
            let variants = ["", "accept-language=en", "accept-language=fr", "accept=text/html&accept-language=de"]
            var stored: [CourierCacheEntry] = []
            for (index, variant) in variants.enumerated() {
                var entry = sampleEntry(key: key, variant: variant, serial: index, length: index * 1500, tags: ["version": "\(index)"])
                entry.requestDate = Date(timeIntervalSinceReferenceDate: 785_000_000.123_456 + Double(index))
                try await storage.store(entry)
                stored.append(entry)
            }
            try await storage.store(sampleEntry(key: "https://example.test/other"))
            #expect(try await storage.entries(forKey: key) == Array(stored.reversed()))

            let replacement = sampleEntry(key: key, variant: variants[1], serial: 9, length: 10)
            try await storage.store(replacement)
            let afterReplacing = try await storage.entries(forKey: key)
            #expect(afterReplacing.count == variants.count)
            #expect(afterReplacing.first == replacement)

            let reopened = try DiskCacheStorage(directory: folder)
            #expect(try await reopened.entries(forKey: key) == afterReplacing)

            try await reopened.removeEntry(forKey: key, variant: variants[0])
            #expect(try await storage.entries(forKey: key).map(\.variant).sorted() == Array(variants.dropFirst()).sorted())
            try await storage.removeEntries(forKey: key)
            #expect(try await storage.entries(forKey: key).isEmpty)
            #expect(try await storage.statistics().entryCount == 1)
            try await storage.removeAll()
            #expect(try await storage.statistics() == CacheStatistics(entryCount: 0, totalBytes: 0))
            #expect(try await storage.entries(forKey: "https://example.test/other").isEmpty)
        }
    }

    @Test func evictsTheLeastRecentlyUsedEntriesByBytesAcrossRestarts() async throws {
        // Every entry takes the same number of bytes: keys of one length, one body length.
        let size = try await withDiskCache { storage, _ in
            try await storage.store(sampleEntry(key: "key-0", length: 2000))
            return try await storage.statistics().totalBytes
        }
        // Room for three and a half entries; eviction leaves at most nine tenths of that.
        try await withDiskCache(maximumBytes: size * 7 / 2) { storage, folder in
            func stored(_ names: [String]) -> [Bool] {
                names.map { FileManager.default.fileExists(atPath: entryFile(in: folder, key: $0).path) }
            }
            for name in ["key-1", "key-2", "key-3"] { try await storage.store(sampleEntry(key: name, length: 2000)) }
            #expect(try await storage.entries(forKey: "key-1").count == 1)
            try await storage.store(sampleEntry(key: "key-4", length: 2000))
            #expect(stored(["key-1", "key-2", "key-3", "key-4"]) == [true, false, true, true], "key-2 was used least recently")

            let reopened = try DiskCacheStorage(directory: folder, maximumBytes: size * 7 / 2)
            #expect(try await reopened.entries(forKey: "key-3").count == 1)
            try await reopened.store(sampleEntry(key: "key-5", length: 2000))
            #expect(stored(["key-1", "key-3", "key-4", "key-5"]) == [false, true, true, true], "key-1 was used least recently")
            #expect(try await reopened.statistics() == CacheStatistics(entryCount: 3, totalBytes: 3 * size))
        }
    }

    @Test func anEntryLargerThanTheLimitIsNotKeptAndDropsTheOneItReplaces() async throws {
        try await withDiskCache(maximumBytes: 4000) { storage, _ in
            try await storage.store(sampleEntry(key: "big", length: 100))
            try await storage.store(sampleEntry(key: "big", serial: 2, length: 5000))
            #expect(try await storage.entries(forKey: "big").isEmpty)
        }
    }

    @Test func filesAreNamedByHashesAndReadableByTheOwnerOnly() async throws {
        try await withDiskCache { storage, folder in
            let key = "https://user@example.test/private?token=abc"
            try await storage.store(sampleEntry(key: key, variant: "accept=json"))
            let file = entryFile(in: folder, key: key, variant: "accept=json")
            #expect(FileManager.default.fileExists(atPath: file.path))
            #expect(allFiles(in: folder).allSatisfy { !$0.contains("example") && !$0.contains("token") })
            #expect(try permissions(of: file) == 0o600)
            #expect(try permissions(of: folder.appendingPathComponent("lock")) == 0o600)
            #expect(try permissions(of: folder.appendingPathComponent("ledger")) == 0o600)
            for directory in [folder, folder.appendingPathComponent("entries"), file.deletingLastPathComponent()] {
                #expect(try permissions(of: directory) == 0o700, "\(directory.path)")
            }
        }
    }

    @Test func twoStoresOnOneFolderStayConsistentUnderConcurrentUse() async throws {
        let limit = 400_000
        try await withDiskCache(maximumBytes: limit) { first, folder in
            let second = try DiskCacheStorage(directory: folder, maximumBytes: limit)
            let damaged = try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<8 {
                    let storage = worker.isMultiple(of: 2) ? first : second
                    group.addTask {
                        var damaged = 0
                        for step in 0..<60 {
                            let key = "https://example.test/shared/\((worker + step) % 12)"
                            let variant = step % 3 == 0 ? "" : "v\(step % 2)"
                            switch step % 5 {
                            case 0, 1, 2:
                                let length = (worker * 9973 + step * 7919) % 30_000
                                try await storage.store(sampleEntry(key: key, variant: variant, serial: worker * 1000 + step, length: length))
                            case 3:
                                for entry in try await storage.entries(forKey: key)
                                where entry.key != key
                                    || !SelfDescribingBody.isIntact(entry.body, key: key, variant: entry.variant)
                                {
                                    damaged += 1
                                }
                            default:
                                try await storage.removeEntry(forKey: key, variant: variant)
                            }
                        }
                        return damaged
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(damaged == 0)
            let statistics = try await first.statistics()
            #expect(statistics.totalBytes <= limit)
            var readBack = 0
            for index in 0..<12 {
                let key = "https://example.test/shared/\(index)"
                let entries = try await second.entries(forKey: key)
                #expect(entries.allSatisfy { SelfDescribingBody.isIntact($0.body, key: key, variant: $0.variant) })
                readBack += entries.count
            }
            #expect(readBack == statistics.entryCount, "every file on disk reads back intact")
            #expect(!allFiles(in: folder).contains { $0.contains(".tmp-") }, "no temporary file is left behind")
        }
    }
}
