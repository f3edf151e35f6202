import CCourierZlib

struct InflateError: Error {
    var code: Int32
}

/// Decompresses gzip or zlib data (format detected automatically) with zlib's inflate.
func inflate(_ input: [UInt8]) throws -> [UInt8] {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }
    // 15 + 32: zlib or gzip header, detected automatically.
    let initStatus = inflateInit2_(stream, 47, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
    guard initStatus == Z_OK else { throw InflateError(code: initStatus) }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    var input = input
    return try input.withUnsafeMutableBytes { inputBuffer in
        stream.pointee.next_in = inputBuffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = uInt(inputBuffer.count)
        for _ in 0..<1_000_000 {
            let (status, produced) = chunk.withUnsafeMutableBytes { buffer -> (Int32, Int) in
                stream.pointee.next_out = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(buffer.count)
                let status = CCourierZlib.inflate(stream, Z_NO_FLUSH)
                return (status, buffer.count - Int(stream.pointee.avail_out))
            }
            output.append(contentsOf: chunk[0..<produced])
            if status == Z_STREAM_END { return output }
            guard status == Z_OK else { throw InflateError(code: status) }
        }
        throw InflateError(code: Z_BUF_ERROR)
    }
}
