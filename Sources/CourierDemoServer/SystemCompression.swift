import CCourierCodecs

/// brotli (RFC 7932) and zstd (RFC 8878) bodies, made by the system's libbrotlienc and libzstd,
/// for servers and tests of code that reads them.
public enum SystemCompression: Sendable {
    /// brotli, as `Content-Encoding: br`.
    case brotli
    /// Zstandard, as `Content-Encoding: zstd`.
    case zstd

    /// Thrown when the system's library is missing or refuses the input.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The coding for a `Content-Encoding` name, `nil` for another.
    public init?(contentCoding name: String) {
        switch name {
        case "br": self = .brotli
        case "zstd": self = .zstd
        default: return nil
        }
    }

    /// Whether the system's encoder for the coding could be loaded.
    public var isAvailable: Bool {
        switch self {
        case .brotli: return courier_brotli_encoder_available() != 0
        case .zstd: return courier_zstd_encoder_available() != 0
        }
    }

    /// `bytes` compressed whole, as one brotli stream or one zstd frame, at `level` (brotli's
    /// quality 0–11, zstd's level 1–22).
    public func compress(_ bytes: [UInt8], level: Int = 5) throws(Unavailable) -> [UInt8] {
        let bound: Int
        switch self {
        case .brotli: bound = courier_brotli_compress_bound(bytes.count)
        case .zstd: bound = courier_zstd_compress_bound(bytes.count)
        }
        guard bound > 0 else { throw Unavailable(description: "the system's \(self) library is not installed") }
        var output = [UInt8](repeating: 0, count: bound)
        var written = bound
        let done = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { space in
                switch self {
                case .brotli: return courier_brotli_compress(Int32(level), input.baseAddress, input.count, space.baseAddress, &written)
                case .zstd: return courier_zstd_compress(Int32(level), input.baseAddress, input.count, space.baseAddress, &written)
                }
            }
        }
        guard done != 0 else { throw Unavailable(description: "the system's \(self) library refused the input") }
        output.removeLast(bound - written)
        return output
    }
}
