import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite("Cache entries keep the protocol version; entries without one read as HTTP/1.1")
struct CacheEntryVersionTests {
    private func entry(_ version: CourierResponse.ProtocolVersion) -> CourierCacheEntry {
        var entry = sampleEntry(key: "https://example.test/version", tags: ["a": "1"])
        entry.protocolVersion = version
        return entry
    }

    @Test("a disk entry reads back with its version", arguments: [CourierResponse.ProtocolVersion.http10, .http11, .http2])
    func diskRoundTrip(version: CourierResponse.ProtocolVersion) throws {
        let file = try DiskEntryFormat.encode(entry(version), storedAt: 7)
        let decoded = try #require(DiskEntryFormat.decode(file))
        #expect(decoded.entry == entry(version))
        #expect(decoded.entry.protocolVersion == version)
    }

    @Test("an HTTP/1.1 entry's file is laid out as before versions were kept; another version adds two bytes at the end")
    func http11FilesAreUnchanged() throws {
        let http11 = try DiskEntryFormat.encode(entry(.http11), storedAt: 7)
        let http2 = try DiskEntryFormat.encode(entry(.http2), storedAt: 7)
        #expect(http2.count == http11.count + 2)
        // Metadata of an earlier version, without the trailing version, reads as HTTP/1.1:
        // the HTTP/1.1 file is exactly such a file.
        #expect(DiskEntryFormat.decode(http11)?.entry.protocolVersion == .http11)
    }

    @Test("a damaged trailing version makes the file a miss")
    func damagedVersion() throws {
        var file = try DiskEntryFormat.encode(entry(.http2), storedAt: 7)
        // One byte of the version gone, the lengths and digest made to match again.
        file.removeLast(entry(.http2).body.count)
        file.removeLast()
        file.append(entry(.http2).body)
        let length = file[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } - 1
        withUnsafeBytes(of: length.bigEndian) { file.replaceSubrange(8..<12, with: $0) }
        #expect(DiskEntryFormat.decode(DiskCacheFormatTests.resealed(file)) == nil)
        // The same file whole is read.
        #expect(DiskEntryFormat.decode(try DiskEntryFormat.encode(entry(.http2), storedAt: 7)) != nil)
    }

    @Test("an entry encoded with Codable before versions were kept decodes as HTTP/1.1; a new one keeps its version")
    func codable() throws {
        let encoded = try JSONEncoder().encode(entry(.http2))
        var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(try JSONDecoder().decode(CourierCacheEntry.self, from: encoded).protocolVersion == .http2)
        object["protocolVersion"] = nil
        let earlier = try JSONSerialization.data(withJSONObject: object)
        let decoded = try JSONDecoder().decode(CourierCacheEntry.self, from: earlier)
        #expect(decoded.protocolVersion == .http11)
        #expect(decoded.key == entry(.http2).key && decoded.body == entry(.http2).body)
    }
}
