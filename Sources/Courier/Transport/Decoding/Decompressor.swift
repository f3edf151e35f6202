import NIOCore

/// One layer of a content coding, undone piece by piece: a zlib stream (``Inflater``), or a
/// brotli or zstd stream (``SystemDecompressor``). Confined to one thread at a time.
protocol Decompressor: AnyObject {
    /// Whether the compressed stream has reached its end.
    var isFinished: Bool { get }

    /// Undoes `input` and appends what it yields to `output`, at most `limit` bytes.
    ///
    /// - Throws: ``DecompressionFailure``.
    func decompress(_ input: ByteBuffer, into output: inout ByteBuffer, limit: Int) throws(DecompressionFailure)
}

/// Why a layer could not be undone.
enum DecompressionFailure: Error {
    /// The bytes are not what their coding says.
    case corrupt
    /// The layer would yield more than it was allowed.
    case tooLarge
    /// The stream needs a larger window than a client has to keep (RFC 9659 for zstd).
    case windowTooLarge
}
