import NIOCore
import NIOHTTP1

/// The `/sink` route: takes a request body of any size as it arrives, keeping none of it.
///
/// It counts the bytes, computes their CRC-32 and notes the largest piece the connection
/// delivered at once, then answers `{"bytes": N, "crc32": C, "largest_read": M}` (the body
/// recorded in ``TestServer/receivedRequests`` is empty). Used for uploads too large to hold.
final class BodySink {
    /// Whether a request for `head` goes to the sink instead of being collected.
    static func accepts(_ head: HTTPRequestHead) -> Bool {
        head.uri == "/sink" || head.uri.hasPrefix("/sink?")
    }

    private var bytes = 0
    private var checksum = CRC32()
    private var largestRead = 0

    /// Takes one piece of the body.
    func consume(_ chunk: ByteBuffer) {
        bytes += chunk.readableBytes
        largestRead = max(largestRead, chunk.readableBytes)
        chunk.withUnsafeReadableBytes { checksum.update(with: $0) }
    }

    /// The answer once the body has ended.
    func response() -> TestResponse {
        .json(
            .object([
                ("bytes", .int(Int64(bytes))),
                ("crc32", .int(Int64(checksum.value))),
                ("largest_read", .int(Int64(largestRead))),
            ]))
    }
}
