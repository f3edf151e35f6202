import CourierTesting
import Crypto
import Foundation
import Testing

@testable import Courier

@Suite("Disk cache storage: file layouts")
struct DiskCacheFormatTests {
    static let key = "https://example.test/layout"

    /// An entry with several header fields and tags, so that every part of the metadata is used.
    private func richEntry() -> CourierCacheEntry {
        var entry = sampleEntry(key: Self.key, variant: "accept-language:fr", length: 2500, tags: ["courier.version": "3", "b": "2"])
        entry.headers.add(name: "Vary", value: "Accept-Language")
        entry.headers.add(name: "X-Empty", value: "")
        entry.headers.add(name: "X-Text", value: "naïve – ünïcode")
        entry.reasonPhrase = "Très Bien"
        entry.requestDate = Date(timeIntervalSinceReferenceDate: 785_000_000.123_456_789)
        return entry
    }

    @Test func anEntryReadsBackExactlyWithEveryField() async throws {
        try await withDiskCache { storage, folder in
            let entry = richEntry()
            try await storage.store(entry)
            #expect(try await storage.entries(forKey: Self.key) == [entry])
            let file = try Data(contentsOf: entryFile(in: folder, key: Self.key, variant: entry.variant))
            #expect(file.prefix(8) == Data("COURIER2".utf8))
        }
    }

    @Test func metadataThatFailsToReadIsAMissEvenWithAMatchingDigest() async throws {
        try await withDiskCache { storage, folder in
            let entry = richEntry()
            try await storage.store(entry)
            let path = entryFile(in: folder, key: Self.key, variant: entry.variant)
            let original = try Data(contentsOf: path)
            // The header-field count sits after the dates (4 × 8 bytes) and three strings.
            var offset = 52 + 32
            for text in [entry.key, entry.variant, entry.reasonPhrase] { offset += 4 + text.utf8.count }
            for count in [UInt32(entry.headers.count + 1), UInt32(entry.headers.count - 1), UInt32.max] {
                var damaged = original
                withUnsafeBytes(of: count.bigEndian) { damaged.replaceSubrange(offset..<(offset + 4), with: $0) }
                try Self.resealed(damaged).write(to: path)
                #expect(try await storage.entries(forKey: Self.key).isEmpty, "a header count of \(count) was read")
                #expect(!FileManager.default.fileExists(atPath: path.path))
            }
        }
    }

    @Test func anEntryInTheJSONLayoutIsStillRead() async throws {
        try await withDiskCache { storage, folder in
            let entry = richEntry()
            let path = entryFile(in: folder, key: Self.key, variant: entry.variant)
            try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.jsonLayout(entry).write(to: path)
            #expect(try await storage.entries(forKey: Self.key) == [entry])

            // A stored replacement is written in the binary layout.
            try await storage.store(entry)
            #expect(try Data(contentsOf: path).prefix(8) == Data("COURIER2".utf8))
        }
    }

    @Test func aDamagedEntryInTheJSONLayoutIsAMissAndIsRemoved() async throws {
        try await withDiskCache { storage, folder in
            let entry = richEntry()
            let path = entryFile(in: folder, key: Self.key, variant: entry.variant)
            try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
            let original = try Self.jsonLayout(entry)
            for position in [10, 30, 60, original.count - 100, original.count - 1] {
                var damaged = original
                damaged[position] ^= 0x20
                try damaged.write(to: path)
                #expect(try await storage.entries(forKey: Self.key).isEmpty, "byte \(position) flipped")
                #expect(!FileManager.default.fileExists(atPath: path.path))
            }
        }
    }

    /// `file` with its digest recomputed over everything else, as the binary layout defines it.
    static func resealed(_ file: Data) -> Data {
        var hasher = SHA256()
        hasher.update(data: file.prefix(20))
        hasher.update(data: file.dropFirst(52))
        var sealed = file
        sealed.replaceSubrange(20..<52, with: Array(hasher.finalize()))
        return sealed
    }

    /// An entry file in the JSON layout: magic, lengths, a SHA-256 of the prefix and the
    /// metadata, the JSON metadata (with the body's SHA-256), the body.
    static func jsonLayout(_ entry: CourierCacheEntry) throws -> Data {
        let metadata = DiskEntryFormat.JSONLayout.Metadata(
            key: entry.key, variant: entry.variant, status: entry.status, reasonPhrase: entry.reasonPhrase,
            headers: entry.headers, requestDate: entry.requestDate, responseDate: entry.responseDate, storedAt: 1,
            tags: entry.tags, bodyLength: entry.body.count,
            bodySHA256: SHA256.hash(data: entry.body).map { String(format: "%02x", $0) }.joined()
        )
        let json = try JSONEncoder().encode(metadata)
        var head = Data("COURIER1".utf8)
        withUnsafeBytes(of: UInt32(json.count).bigEndian) { head.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(entry.body.count).bigEndian) { head.append(contentsOf: $0) }
        var hasher = SHA256()
        hasher.update(data: head)
        hasher.update(data: json)
        return head + Data(hasher.finalize()) + json + entry.body
    }
}
