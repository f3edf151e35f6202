import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// Runs `body` with a path for a cache folder that does not exist yet, removed afterwards.
func withCacheFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}

/// An entry with a self-describing body.
func cacheEntry(_ key: String, length: Int) -> CourierCacheEntry {
    CourierCacheEntry(
        key: key, status: 200, headers: ["ETag": "\"1\""], body: SelfDescribingBody.make(key: key, variant: "", serial: 1, length: length),
        requestDate: Date(), responseDate: Date()
    )
}

@Suite("courier cache")
struct CacheCommandTests {
    @Test func statsCountsEntriesAndBytesAsTextOrJSON() async throws {
        try await withCacheFolder { folder in
            let storage = try DiskCacheStorage(directory: folder)
            try await storage.store(cacheEntry("https://example.test/a", length: 1000))
            try await storage.store(cacheEntry("https://example.test/b", length: 3000))
            let bytes = try await storage.statistics().totalBytes

            let text = await courier("cache", "stats", "--cache", folder.path)
            #expect(text.status == 0)
            #expect(text.stdout == "entries: 2\nbytes: \(bytes)\n")

            let json = await courier("cache", "stats", "--cache", folder.path, "--report", "json")
            #expect(json.status == 0)
            #expect(json.stdout == "{\"entries\":2,\"bytes\":\(bytes)}\n")
            let object = try report(json.stdout.trimmingCharacters(in: .newlines))
            #expect(object["entries"] as? Int == 2)
        }
    }

    @Test func clearRemovesEveryEntry() async throws {
        try await withCacheFolder { folder in
            let storage = try DiskCacheStorage(directory: folder)
            try await storage.store(cacheEntry("https://example.test/a", length: 10))
            let run = await courier("cache", "clear", "--cache", folder.path)
            #expect(run.status == 0 && run.stdout.isEmpty && run.stderr.isEmpty)
            #expect(try await storage.entries(forKey: "https://example.test/a").isEmpty)
            #expect(await courier("cache", "stats", "--cache", folder.path).stdout == "entries: 0\nbytes: 0\n")
        }
    }

    @Test func aMissingFolderIsAnEmptyCacheAndIsNotCreated() async throws {
        try await withCacheFolder { folder in
            #expect(await courier("cache", "stats", "--cache", folder.path).stdout == "entries: 0\nbytes: 0\n")
            #expect(await courier("cache", "clear", "--cache", folder.path).status == 0)
            #expect(!FileManager.default.fileExists(atPath: folder.path))
        }
    }

    @Test func aFileInsteadOfAFolderIsInvalidInput() async throws {
        try await withCacheFolder { folder in
            try Data("x".utf8).write(to: folder)
            let run = await courier("cache", "stats", "--cache", folder.path)
            #expect(run.status == 2)
            #expect(run.stderr.contains("is a file, not a folder"))
        }
    }

    @Test func theWriterUsedByCrashTestsIsNotListedInTheHelp() async throws {
        let help = await courier("--help")
        #expect(help.stdout.contains("cache"))
        #expect(!help.stdout.contains("cache-writer"))
    }
}
