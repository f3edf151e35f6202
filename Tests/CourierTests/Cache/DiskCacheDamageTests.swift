import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Disk cache storage: damaged files")
struct DiskCacheDamageTests {
    static let key = "https://example.test/damage"

    /// Stores the entry afresh and returns its file's bytes.
    private func storeIntact(_ storage: DiskCacheStorage, _ folder: URL) async throws -> Data {
        try await storage.store(sampleEntry(key: Self.key, variant: "v", length: 3000))
        return try Data(contentsOf: entryFile(in: folder, key: Self.key, variant: "v"))
    }

    /// Expects the damaged file to be a miss, and gone afterwards.
    private func expectMissAndRemoved(_ storage: DiskCacheStorage, _ folder: URL, _ what: String) async throws {
        let entries = try await storage.entries(forKey: Self.key)
        #expect(entries.isEmpty, "a file with \(what) was served")
        #expect(!FileManager.default.fileExists(atPath: entryFile(in: folder, key: Self.key, variant: "v").path), "a file with \(what) was kept")
    }

    @Test func aFlippedByteAnywhereIsAMissAndTheFileIsRemoved() async throws {
        try await withDiskCache { storage, folder in
            let original = try await storeIntact(storage, folder)
            // Every byte of the fixed prefix and the start of the metadata, then positions spread
            // over the whole file, with masks from a fixed sequence.
            let positions = Array(0..<80) + Array(stride(from: 80, to: original.count, by: max(1, original.count / 120))) + [original.count - 1]
            var mask: UInt8 = 0x5A
            for position in positions {
                var damaged = original
                mask = mask &* 37 &+ 11
                damaged[position] ^= (mask == 0 ? 1 : mask)
                try damaged.write(to: entryFile(in: folder, key: Self.key, variant: "v"))
                try await expectMissAndRemoved(storage, folder, "byte \(position) of \(original.count) flipped")
            }
            try original.write(to: entryFile(in: folder, key: Self.key, variant: "v"))
            #expect(try await storage.entries(forKey: Self.key).count == 1, "an intact file is still served")
        }
    }

    @Test func aTruncatedOrExtendedFileIsAMissAndTheFileIsRemoved() async throws {
        try await withDiskCache { storage, folder in
            let original = try await storeIntact(storage, folder)
            let lengths = [0, 1, 7, 8, 12, 19, 20, 51, 52, 53, 200, original.count / 2, original.count - 33, original.count - 1]
            for length in lengths {
                try original.prefix(length).write(to: entryFile(in: folder, key: Self.key, variant: "v"))
                try await expectMissAndRemoved(storage, folder, "its first \(length) of \(original.count) bytes")
            }
            try (original + Data([0])).write(to: entryFile(in: folder, key: Self.key, variant: "v"))
            try await expectMissAndRemoved(storage, folder, "an extra byte")
        }
    }

    @Test func anEntryFiledUnderAnotherKeysNameIsAMiss() async throws {
        try await withDiskCache { storage, folder in
            let original = try await storeIntact(storage, folder)
            let other = entryFile(in: folder, key: "https://example.test/elsewhere", variant: "v")
            try FileManager.default.createDirectory(at: other.deletingLastPathComponent(), withIntermediateDirectories: true)
            try original.write(to: other)
            #expect(try await storage.entries(forKey: "https://example.test/elsewhere").isEmpty)
            #expect(!FileManager.default.fileExists(atPath: other.path))
        }
    }
}
