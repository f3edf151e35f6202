import Crypto
import Foundation

/// The layout of one entry file of ``DiskCacheStorage``.
///
/// ```
/// magic "COURIER1"           8 bytes
/// metadata length           4 bytes, big-endian
/// body length               8 bytes, big-endian
/// SHA-256 of the above and the metadata   32 bytes
/// metadata                  JSON (key, variant, status, headers, dates, tags, body length and SHA-256)
/// body
/// ```
///
/// A file is accepted only when its size is exactly what the lengths say, the metadata hashes
/// to the stored digest, the body length agrees with the metadata and the body hashes to the
/// metadata's SHA-256: a torn, truncated, extended or altered file fails one of these checks.
enum DiskEntryFormat {
    static let magic = Data("COURIER1".utf8)
    static let prefixLength = 8 + 4 + 8 + 32

    /// What an entry file keeps besides the body.
    struct Metadata: Codable {
        var key: String
        var variant: String
        var status: Int
        var reasonPhrase: String
        var headers: Headers
        var requestDate: Date
        var responseDate: Date
        /// When the entry was stored, in nanoseconds since 1970: orders the variants of a key.
        var storedAt: Int64
        var tags: [String: String]
        var bodyLength: Int
        var bodySHA256: String
    }

    /// The file contents for `entry`, stored at `storedAt` (nanoseconds since 1970).
    static func encode(_ entry: CacheEntry, storedAt: Int64) throws(CourierError) -> Data {
        let metadata = Metadata(
            key: entry.key, variant: entry.variant, status: entry.status, reasonPhrase: entry.reasonPhrase,
            headers: entry.headers, requestDate: entry.requestDate, responseDate: entry.responseDate,
            storedAt: storedAt, tags: entry.tags, bodyLength: entry.body.count,
            bodySHA256: SHA256.hash(data: entry.body).hexadecimal
        )
        let json: Data
        do {
            json = try JSONEncoder().encode(metadata)
        } catch {
            throw CourierError(.cacheStorageFailed, "The cache entry for \(entry.key) could not be encoded for the disk cache: \(error).", underlyingError: error)
        }
        var head = magic
        head.append(bigEndian: UInt32(json.count))
        head.append(bigEndian: UInt64(entry.body.count))
        var file = head
        file.append(contentsOf: digest(head: head, metadata: json))
        file.append(json)
        file.append(entry.body)
        return file
    }

    /// The entry and when it was stored, or `nil` when `file` is damaged in any way.
    static func decode(_ file: Data) -> (entry: CacheEntry, storedAt: Int64)? {
        let bytes = [UInt8](file)
        guard bytes.count >= prefixLength, bytes[0..<8].elementsEqual(magic) else { return nil }
        let metadataLength = Int(bytes[8..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        let bodyLength64 = bytes[12..<20].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard bodyLength64 <= UInt64(bytes.count) else { return nil }
        let bodyLength = Int(bodyLength64)
        guard bytes.count == prefixLength + metadataLength + bodyLength else { return nil }
        let json = Data(bytes[prefixLength..<(prefixLength + metadataLength)])
        guard digest(head: Data(bytes[0..<20]), metadata: json).elementsEqual(bytes[20..<52]) else { return nil }
        guard let metadata = try? JSONDecoder().decode(Metadata.self, from: json), metadata.bodyLength == bodyLength else {
            return nil
        }
        let body = Data(bytes[(prefixLength + metadataLength)...])
        guard SHA256.hash(data: body).hexadecimal == metadata.bodySHA256 else { return nil }
        let entry = CacheEntry(
            key: metadata.key, variant: metadata.variant, status: metadata.status, reasonPhrase: metadata.reasonPhrase,
            headers: metadata.headers, body: body, requestDate: metadata.requestDate, responseDate: metadata.responseDate,
            tags: metadata.tags
        )
        return (entry, metadata.storedAt)
    }

    private static func digest(head: Data, metadata: Data) -> SHA256.Digest {
        var hasher = SHA256()
        hasher.update(data: head)
        hasher.update(data: metadata)
        return hasher.finalize()
    }
}

extension Data {
    fileprivate mutating func append<Integer: FixedWidthInteger>(bigEndian value: Integer) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
