import CCourierZlib
import Foundation

/// The CRC-32 checksum (as in zlib, gzip and PNG), computed piece by piece.
///
/// ``TestServer``'s `/sink` route answers with the CRC-32 of the body it received; compute the
/// same over the bytes you sent to compare them without keeping either in memory.
public struct CRC32: Sendable, Hashable {
    /// The checksum of the bytes seen so far.
    public private(set) var value: UInt32 = 0

    /// A checksum of no bytes.
    public init() {}

    /// Adds `bytes` to the checksum.
    public mutating func update(with bytes: UnsafeRawBufferPointer) {
        var remaining = bytes[...]
        while !remaining.isEmpty {
            let count = min(remaining.count, Int(UInt32.max))
            let piece = UnsafeRawBufferPointer(rebasing: remaining.prefix(count))
            value = UInt32(crc32(uLong(value), piece.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(count)))
            remaining = remaining.dropFirst(count)
        }
    }

    /// Adds `bytes` to the checksum.
    public mutating func update<Bytes: ContiguousBytes>(with bytes: Bytes) {
        bytes.withUnsafeBytes { update(with: $0) }
    }
}
