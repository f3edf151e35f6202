import CCourierZlib

/// A streaming zlib compressor (deflate) producing gzip (RFC 1952) or zlib (RFC 1950) framed output.
///
/// Not thread-safe; use from one thread (or event loop) at a time.
final class Deflater {
    /// The container format of the compressed output.
    enum Format {
        /// gzip framing (windowBits 31).
        case gzip
        /// zlib framing, as used by HTTP `Content-Encoding: deflate` (windowBits 15).
        case zlib
        /// No framing: raw deflate, which some servers send as `deflate` (windowBits -15).
        case raw

        var windowBits: Int32 {
            switch self {
            case .gzip: return 31
            case .zlib: return 15
            case .raw: return -15
            }
        }
    }

    /// Thrown when zlib reports an error.
    struct ZlibError: Error {
        var code: Int32
    }

    private let stream: UnsafeMutablePointer<z_stream>
    private var finished = false

    init(format: Format, level: Int32 = Z_DEFAULT_COMPRESSION) throws {
        // Initialise zlib before `self.stream` is set, so that a failure does not run `deinit`.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, format.windowBits, 8, Z_DEFAULT_STRATEGY,
            zlibVersion(), Int32(MemoryLayout<z_stream>.size)
        )
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw ZlibError(code: status)
        }
        self.stream = stream
    }

    deinit {
        deflateEnd(self.stream)
        self.stream.deinitialize(count: 1)
        self.stream.deallocate()
    }

    /// Compresses `input` and returns whatever output zlib produced so far.
    func compress(_ input: UnsafeRawBufferPointer) throws -> [UInt8] {
        try self.run(input, flush: Z_NO_FLUSH)
    }

    /// Flushes all pending output and writes the stream trailer. Further calls return an empty array.
    func finish() throws -> [UInt8] {
        guard !self.finished else { return [] }
        self.finished = true
        return try self.run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH)
    }

    private func run(_ input: UnsafeRawBufferPointer, flush: Int32) throws -> [UInt8] {
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        self.stream.pointee.next_in = UnsafeMutablePointer(
            mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self)
        )
        self.stream.pointee.avail_in = uInt(input.count)
        // Standard zlib loop: call deflate until it leaves output space unused. The bound is only a safety
        // net against a misbehaving library (each iteration produces a full 16 KiB chunk).
        for _ in 0..<1_000_000 {
            let (status, produced) = chunk.withUnsafeMutableBytes { buffer -> (Int32, Int) in
                self.stream.pointee.next_out = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
                self.stream.pointee.avail_out = uInt(buffer.count)
                let status = deflate(self.stream, flush)
                return (status, buffer.count - Int(self.stream.pointee.avail_out))
            }
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw ZlibError(code: status)
            }
            output.append(contentsOf: chunk[0..<produced])
            if self.stream.pointee.avail_out != 0 || status == Z_STREAM_END {
                return output
            }
        }
        throw ZlibError(code: Z_STREAM_ERROR)
    }

    /// Compresses `bytes` in one go.
    static func compress(_ bytes: [UInt8], format: Format) throws -> [UInt8] {
        let deflater = try Deflater(format: format)
        var output = try bytes.withUnsafeBytes { try deflater.compress($0) }
        output += try deflater.finish()
        return output
    }
}

/// A gzip-compressed body of `count` zero bytes, compressed lazily from a small buffer (for `/gzip-bomb`).
final class GzipZerosSource: ResponseBodySource {
    private static let zeros = [UInt8](repeating: 0, count: 64 * 1024)
    /// Uncompressed bytes compressed per step, so that the event loop is not held for long.
    private static let stepSize = 1024 * 1024

    private var deflater: Deflater?
    private var remaining: Int

    init(count: Int) throws {
        self.deflater = try Deflater(format: .gzip, level: 9)
        self.remaining = max(0, count)
    }

    func next() -> BodyStep {
        guard let deflater = self.deflater else { return .end }
        do {
            var output: [UInt8] = []
            var budget = Self.stepSize
            while budget > 0 && self.remaining > 0 {
                let size = min(budget, self.remaining, Self.zeros.count)
                output += try Self.zeros.withUnsafeBytes { zeros in
                    try deflater.compress(UnsafeRawBufferPointer(rebasing: zeros[0..<size]))
                }
                budget -= size
                self.remaining -= size
            }
            if self.remaining == 0 {
                output += try deflater.finish()
                self.deflater = nil
            }
            return .bytes(output)
        } catch {
            self.deflater = nil
            return .end
        }
    }
}

/// gzip for tests of code that reads compressed bodies.
public enum TestGzip {
    /// `bytes` as one gzip member (RFC 1952).
    public static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        try Deflater.compress(bytes, format: .gzip)
    }
}
