import CCourierCodecs
import NIOCore

/// A brotli (RFC 7932) or zstd (RFC 8878) stream, undone by the system's own library, which
/// `CCourierCodecs` loads on first use. Confined to one thread at a time.
///
/// Bytes after the end of a brotli stream are not part of it (the format has no second
/// member); a zstd body may hold several frames, one after the other (RFC 8878 §3.1).
final class SystemDecompressor: Decompressor {
    /// The codings a system library can undo.
    enum Coding: Sendable {
        case brotli
        case zstd

        /// Whether the system's library for the coding could be loaded.
        var isAvailable: Bool {
            switch self {
            case .brotli: return courier_brotli_decoder_available() != 0
            case .zstd: return courier_zstd_decoder_available() != 0
            }
        }
    }

    /// The largest zstd window kept: 8 MiB, the most RFC 9659 has a client support for the
    /// `zstd` content coding (and what browsers allow), so that no response can make the
    /// decoder hold more.
    static let zstdWindowLog: Int32 = 23

    private let coding: Coding
    private let decoder: UnsafeMutableRawPointer
    private(set) var isFinished = false

    /// - Throws: ``DecompressionFailure/corrupt`` when the library is missing or has no memory.
    init(_ coding: Coding) throws(DecompressionFailure) {
        let made: UnsafeMutableRawPointer?
        switch coding {
        case .brotli: made = courier_brotli_decoder_create()
        case .zstd: made = courier_zstd_decoder_create(SystemDecompressor.zstdWindowLog)
        }
        guard let made else { throw .corrupt }
        self.coding = coding
        self.decoder = made
    }

    deinit {
        switch coding {
        case .brotli: courier_brotli_decoder_destroy(decoder)
        case .zstd: courier_zstd_decoder_destroy(decoder)
        }
    }

    func decompress(_ input: ByteBuffer, into output: inout ByteBuffer, limit: Int) throws(DecompressionFailure) {
        guard input.readableBytes > 0 else { return }
        let start = output.writerIndex
        try input.withUnsafeReadableBytes { bytes in
            Result { () throws(DecompressionFailure) in try feed(bytes, into: &output, until: start + limit) }
        }.get()
    }

    /// Feeds all of `bytes` to the decoder, appending what it yields to `output`, which must
    /// not grow past `end`.
    private func feed(_ bytes: UnsafeRawBufferPointer, into output: inout ByteBuffer, until end: Int) throws(DecompressionFailure) {
        var next = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var remaining = bytes.count
        while true {
            if isFinished {
                guard remaining > 0 else { return }
                // A brotli stream has one end; a zstd body may hold another frame.
                guard coding == .zstd else { throw .corrupt }
                isFinished = false
            }
            let before = remaining
            var status = courier_codec_more
            let written = output.writeWithUnsafeMutableBytes(minimumWritableBytes: 16 * 1024) { space -> Int in
                var out = space.baseAddress?.assumingMemoryBound(to: UInt8.self)
                var room = space.count
                switch coding {
                case .brotli: status = courier_brotli_decode(decoder, &next, &remaining, &out, &room)
                case .zstd: status = courier_zstd_decode(decoder, &next, &remaining, &out, &room)
                }
                return space.count - room
            }
            if output.writerIndex > end { throw .tooLarge }
            switch status {
            case courier_codec_end:
                isFinished = true
            case courier_codec_output_full:
                continue
            case courier_codec_more:
                if remaining == 0 { return }
                // Input left, no end, room left: a decoder that takes nothing and yields
                // nothing would otherwise be asked forever.
                if remaining == before && written == 0 { throw .corrupt }
            case courier_codec_window_too_large:
                throw .windowTooLarge
            default:
                throw .corrupt
            }
        }
    }
}
