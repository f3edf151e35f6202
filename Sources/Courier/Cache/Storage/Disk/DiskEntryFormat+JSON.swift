import Crypto
import Foundation

extension DiskEntryFormat {
    /// The earlier layout of entry files, still read so that a cache written by an earlier
    /// version stays usable; entries are always written in the binary layout.
    ///
    /// ```
    /// magic "COURIER1"          8 bytes
    /// metadata length           4 bytes, big-endian
    /// body length               8 bytes, big-endian
    /// SHA-256                   32 bytes, of the 20 bytes above and the metadata
    /// metadata                  JSON (key, variant, status, headers, dates, tags, body length and SHA-256)
    /// body
    /// ```
    enum JSONLayout {
        static let magic: [UInt8] = Array("COURIER1".utf8)

        /// What the JSON metadata holds.
        struct Metadata: Codable {
            var key: String
            var variant: String
            var status: Int
            var reasonPhrase: String
            var headers: Headers
            var requestDate: Date
            var responseDate: Date
            var storedAt: Int64
            var tags: [String: String]
            var bodyLength: Int
            var bodySHA256: String
        }

        /// The entry and when it was stored, or `nil` when `file` is damaged in any way.
        static func decode(_ file: Data) -> (entry: CourierCacheEntry, storedAt: Int64)? {
            let bytes = [UInt8](file)
            guard bytes.count >= prefixLength, bytes[0..<8].elementsEqual(magic) else { return nil }
            let metadataLength = Int(bytes[8..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            let bodyLength64 = bytes[12..<20].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard bodyLength64 <= UInt64(bytes.count) else { return nil }
            let bodyLength = Int(bodyLength64)
            guard bytes.count == prefixLength + metadataLength + bodyLength else { return nil }
            let json = Data(bytes[prefixLength..<(prefixLength + metadataLength)])
            var hasher = SHA256()
            hasher.update(data: bytes[0..<20])
            hasher.update(data: json)
            guard hasher.finalize().elementsEqual(bytes[20..<52]) else { return nil }
            guard let metadata = try? JSONDecoder().decode(Metadata.self, from: json), metadata.bodyLength == bodyLength else {
                return nil
            }
            let body = Data(bytes[(prefixLength + metadataLength)...])
            guard SHA256.hash(data: body).hexadecimal == metadata.bodySHA256 else { return nil }
            let entry = CourierCacheEntry(
                key: metadata.key, variant: metadata.variant, status: metadata.status, reasonPhrase: metadata.reasonPhrase,
                headers: metadata.headers, body: body, requestDate: metadata.requestDate, responseDate: metadata.responseDate,
                tags: metadata.tags
            )
            return (entry, metadata.storedAt)
        }
    }
}
