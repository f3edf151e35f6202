/// Writes the metadata of an entry file: integers big-endian, strings as a 4-byte length and
/// their UTF-8 bytes, lists as a 4-byte count and their items.
struct EntryMetadataWriter {
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(512) }

    mutating func integer<Integer: FixedWidthInteger>(_ value: Integer) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ text: String) {
        integer(UInt32(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }
}

/// Reads what ``EntryMetadataWriter`` wrote; every read is `nil` past the end.
struct EntryMetadataReader {
    let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Whether every byte was read.
    var isAtEnd: Bool { offset == bytes.count }

    mutating func integer<Integer: FixedWidthInteger>(_ type: Integer.Type) -> Integer? {
        let size = MemoryLayout<Integer>.size
        guard bytes.count - offset >= size else { return nil }
        defer { offset += size }
        return Integer(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Integer.self))
    }

    mutating func string() -> String? {
        guard let length = integer(UInt32.self).map(Int.init), bytes.count - offset >= length else { return nil }
        defer { offset += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
    }

    /// The protocol version that may end the metadata: HTTP/1.1 when nothing is left.
    mutating func protocolVersion() -> CourierResponse.ProtocolVersion? {
        if isAtEnd { return .http11 }
        guard let major = integer(UInt8.self), let minor = integer(UInt8.self) else { return nil }
        return CourierResponse.ProtocolVersion(major: Int(major), minor: Int(minor))
    }

    /// A list of string pairs: header fields or tags.
    mutating func pairs() -> [(String, String)]? {
        // Each pair takes at least 8 bytes, which bounds a damaged count.
        guard let count = integer(UInt32.self).map(Int.init), count <= (bytes.count - offset) / 8 else { return nil }
        var pairs: [(String, String)] = []
        pairs.reserveCapacity(count)
        for _ in 0..<count {
            guard let name = string(), let value = string() else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }
}
