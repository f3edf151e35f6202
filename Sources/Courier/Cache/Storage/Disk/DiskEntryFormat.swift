import Crypto
import Foundation

/// The layout of one entry file of ``DiskCacheStorage``.
///
/// ```
/// magic "COURIER2"          8 bytes
/// metadata length           4 bytes, big-endian
/// body length               8 bytes, big-endian
/// SHA-256                   32 bytes, of the 20 bytes above, the metadata and the body
/// metadata                  binary (see EntryMetadataWriter); the protocol version, when it is
///                           not HTTP/1.1, last (2 bytes, major and minor), so that entries of
///                           HTTP/1.1 responses read in earlier versions and entries without
///                           it read as HTTP/1.1
/// body
/// ```
///
/// A file is accepted only when its size is exactly what the lengths say, everything but the
/// digest hashes to the digest, and the metadata reads to its last byte: a torn, truncated,
/// extended or altered file fails one of these checks. Files of the earlier JSON layout
/// (``JSONLayout``) are still read.
enum DiskEntryFormat {
    static let magic: [UInt8] = Array("COURIER2".utf8)
    static let prefixLength = 8 + 4 + 8 + 32

    /// The file contents for `entry`, stored at `storedAt` (nanoseconds since 1970).
    static func encode(_ entry: CourierCacheEntry, storedAt: Int64) throws(CourierError) -> Data {
        var writer = EntryMetadataWriter()
        writer.integer(UInt64(bitPattern: storedAt))
        writer.integer(UInt64(bitPattern: Int64(entry.status)))
        writer.integer(entry.requestDate.timeIntervalSinceReferenceDate.bitPattern)
        writer.integer(entry.responseDate.timeIntervalSinceReferenceDate.bitPattern)
        for text in [entry.key, entry.variant, entry.reasonPhrase] { writer.string(text) }
        writer.integer(UInt32(entry.headers.count))
        for field in entry.headers {
            writer.string(field.name)
            writer.string(field.value)
        }
        writer.integer(UInt32(entry.tags.count))
        for (name, value) in entry.tags.sorted(by: { $0.key < $1.key }) {
            writer.string(name)
            writer.string(value)
        }
        if entry.protocolVersion != .http11 {
            writer.integer(UInt8(clamping: entry.protocolVersion.major))
            writer.integer(UInt8(clamping: entry.protocolVersion.minor))
        }
        let metadata = writer.bytes
        guard metadata.count <= Int(UInt32.max) else {
            throw CourierError(.cacheStorageFailed, "The cache entry for \(entry.key) has header fields too large for the disk cache.")
        }
        var file = Data(capacity: prefixLength + metadata.count + entry.body.count)
        file.append(contentsOf: magic)
        file.append(bigEndian: UInt32(metadata.count))
        file.append(bigEndian: UInt64(entry.body.count))
        var hasher = SHA256()
        hasher.update(data: file)
        hasher.update(data: metadata)
        hasher.update(data: entry.body)
        file.append(contentsOf: hasher.finalize())
        file.append(contentsOf: metadata)
        file.append(entry.body)
        return file
    }

    /// The entry and when it was stored, or `nil` when `file` is damaged in any way.
    static func decode(_ file: Data) -> (entry: CourierCacheEntry, storedAt: Int64)? {
        file.withUnsafeBytes { bytes in
            guard bytes.count >= prefixLength else { return nil }
            if bytes.starts(with: magic) { return decode(bytes) }
            if bytes.starts(with: JSONLayout.magic) { return JSONLayout.decode(file) }
            return nil
        }
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer) -> (entry: CourierCacheEntry, storedAt: Int64)? {
        let metadataLength = Int(bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self).bigEndian)
        let bodyLength64 = bytes.loadUnaligned(fromByteOffset: 12, as: UInt64.self).bigEndian
        guard bodyLength64 <= UInt64(bytes.count) else { return nil }
        let bodyLength = Int(bodyLength64)
        guard bytes.count == prefixLength + metadataLength + bodyLength else { return nil }
        let metadata = UnsafeRawBufferPointer(rebasing: bytes[prefixLength..<(prefixLength + metadataLength)])
        let body = UnsafeRawBufferPointer(rebasing: bytes[(prefixLength + metadataLength)...])
        var hasher = SHA256()
        hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[0..<20]))
        hasher.update(bufferPointer: metadata)
        hasher.update(bufferPointer: body)
        guard hasher.finalize().elementsEqual(bytes[20..<prefixLength]) else { return nil }
        var reader = EntryMetadataReader(bytes: metadata)
        guard let storedAt = reader.integer(UInt64.self).map({ Int64(bitPattern: $0) }),
            let status = reader.integer(UInt64.self).flatMap({ Int(exactly: Int64(bitPattern: $0)) }),
            let requestDate = reader.integer(UInt64.self).map({ Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0)) }),
            let responseDate = reader.integer(UInt64.self).map({ Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0)) }),
            let key = reader.string(), let variant = reader.string(), let reasonPhrase = reader.string(),
            let fields = reader.pairs(), let tags = reader.pairs(), let protocolVersion = reader.protocolVersion(), reader.isAtEnd
        else { return nil }
        let entry = CourierCacheEntry(
            key: key, variant: variant, status: status, reasonPhrase: reasonPhrase, headers: Headers(fields),
            body: Data(body), requestDate: requestDate, responseDate: responseDate,
            tags: Dictionary(tags, uniquingKeysWith: { first, _ in first }), protocolVersion: protocolVersion
        )
        return (entry, storedAt)
    }
}

extension Data {
    mutating func append<Integer: FixedWidthInteger>(bigEndian value: Integer) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
