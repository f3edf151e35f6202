import Foundation
import NIOHTTP1

extension ContentDecoder {
    /// The decoder for the response `head` to a `method` request, or `nil` when there is
    /// nothing to undo; see ``make(encodings:method:status:decompression:url:)``.
    static func make(for head: HTTPResponseHead, method: String, decompression: Decompression, url: URL) throws(CourierError) -> ContentDecoder? {
        try make(
            encodings: head.headers[canonicalForm: "Content-Encoding"].map(String.init), method: method,
            status: Int(head.status.code), decompression: decompression, url: url
        )
    }
}
