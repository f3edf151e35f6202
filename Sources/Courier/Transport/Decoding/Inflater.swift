import CCourierZlib
import NIOCore

/// One zlib inflate stream: a gzip member or a zlib-wrapped deflate stream (told apart by
/// their headers), or a raw deflate stream for servers that send `deflate` without the zlib
/// wrapper. Confined to one thread at a time.
final class Inflater: Decompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    /// Whether the current stream reached its end.
    private(set) var isFinished = false
    /// Whether anything was produced or accepted yet, before which a zlib-less deflate stream
    /// may still be retried as raw deflate.
    private var hasStarted = false
    private var isRaw = false
    private let allowsRaw: Bool

    /// - Parameter allowsRaw: whether a stream without a gzip or zlib header is read as raw
    ///   deflate (for `Content-Encoding: deflate`).
    init(allowsRaw: Bool) throws(DecompressionFailure) {
        self.allowsRaw = allowsRaw
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 15 + 32: a 32 KiB window, and a gzip or zlib header detected automatically.
        guard inflateInit2_(stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .corrupt
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates `input` and appends what it yields to `output`. Bytes after the end of a gzip
    /// member start the next member (RFC 1952 allows several).
    func decompress(_ input: ByteBuffer, into output: inout ByteBuffer, limit: Int) throws(DecompressionFailure) {
        var input = input
        let start = output.writerIndex
        while input.readableBytes > 0 {
            if isFinished {
                guard inflateReset(stream) == Z_OK else { throw .corrupt }
                isFinished = false
            }
            let consumed = try input.withUnsafeReadableBytes { bytes in
                Result { () throws(DecompressionFailure) in try step(bytes, into: &output, until: start + limit) }
            }.get()
            input.moveReaderIndex(forwardBy: consumed)
            if consumed == 0 && !isFinished { break }
        }
    }

    /// Feeds `bytes` until zlib has taken all of them or the stream ended; returns how many
    /// it took. Throws ``DecompressionFailure/tooLarge`` once `output` is written past `end`.
    private func step(_ bytes: UnsafeRawBufferPointer, into output: inout ByteBuffer, until end: Int) throws(DecompressionFailure) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(bytes.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        repeat {
            var status = Z_OK
            output.writeWithUnsafeMutableBytes(minimumWritableBytes: 16 * 1024) { space -> Int in
                stream.pointee.next_out = space.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(space.count)
                status = CCourierZlib.inflate(stream, Z_NO_FLUSH)
                stream.pointee.next_out = nil
                return space.count - Int(stream.pointee.avail_out)
            }
            if output.writerIndex > end { throw .tooLarge }
            switch status {
            case Z_STREAM_END:
                isFinished = true
                hasStarted = true
                return bytes.count - Int(stream.pointee.avail_in)
            case Z_OK, Z_BUF_ERROR:
                hasStarted = true
            case Z_DATA_ERROR where allowsRaw && !isRaw && !hasStarted:
                // No zlib header: read the same bytes again as raw deflate.
                guard inflateReset2(stream, -15) == Z_OK else { throw .corrupt }
                isRaw = true
                return try step(bytes, into: &output, until: end)
            default:
                throw .corrupt
            }
        } while stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0
        return bytes.count - Int(stream.pointee.avail_in)
    }
}
