import Foundation
import NIOCore

/// Undoes the content codings of a response body (RFC 9110 §8.4), every layer, in the reverse
/// of the order `Content-Encoding` lists them: `gzip, gzip` is inflated twice.
///
/// Made per response on the loop that delivers it, and used there only. A response that has
/// no body (to HEAD, 1xx, 204, 304) gets no decoder, whatever its fields announce. A coding
/// Courier cannot undo fails the response with ``CourierError/Kind/unsupportedContentEncoding``
/// rather than handing over bytes that are not the body; a body that grows more than the
/// ratio limit fails with ``CourierError/Kind/decompressionLimitExceeded``; one that ends
/// inside a compressed stream, or is not what its coding says, with
/// ``CourierError/Kind/malformedResponse``.
final class ContentDecoder {
    /// The layers in the order they are undone: the coding listed last was applied last, so
    /// it comes first.
    private let layers: [Inflater]
    private let maximumRatio: Int
    private let url: URL
    private var compressedBytes = 0
    private var decodedBytes = 0

    private init(layers: [Inflater], maximumRatio: Int, url: URL) {
        self.layers = layers
        self.maximumRatio = maximumRatio
        self.url = url
    }

    /// Whether a response to `method` with `status` carries a body at all (RFC 9110 §6.4.1).
    static func hasBody(method: String, status: Int) -> Bool {
        !(method == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304)
    }

    /// The decoder for a response with these `Content-Encoding` values, or `nil` when there is
    /// nothing to undo: no coding, only `identity`, decompression off, or no body.
    static func make(
        encodings: [String], method: String, status: Int, decompression: Decompression, url: URL
    ) throws(CourierError) -> ContentDecoder? {
        guard case .enabled(let ratio) = decompression, hasBody(method: method, status: status) else { return nil }
        let codings = FieldList.elements(encodings).map { $0.lowercased() }.filter { $0 != "identity" }
        guard !codings.isEmpty else { return nil }
        guard codings.count <= 8 else {
            throw CourierError(.unsupportedContentEncoding, "The response lists \(codings.count) content codings; Courier undoes at most 8 layers.", url: url)
        }
        var layers: [Inflater] = []
        for coding in codings.reversed() {
            switch coding {
            case "gzip", "x-gzip", "deflate":
                do {
                    layers.append(try Inflater(allowsRaw: coding == "deflate"))
                } catch {
                    throw CourierError(.transport, "The decompressor could not be set up.", url: url)
                }
            default:
                throw CourierError(
                    .unsupportedContentEncoding,
                    "The response is encoded with \"\(coding)\", which Courier cannot decode (it asks for gzip and deflate only); ask the server for another coding, or turn decompression off to get the bytes as sent.",
                    url: url
                )
            }
        }
        return ContentDecoder(layers: layers, maximumRatio: max(1, ratio), url: url)
    }

    /// The decoded bytes of the next piece of the body; may be empty.
    func decode(_ piece: ByteBuffer) throws(CourierError) -> ByteBuffer {
        compressedBytes += piece.readableBytes
        var current = piece
        do {
            for layer in layers {
                var output = ByteBuffer()
                try layer.inflate(current, into: &output)
                current = output
            }
        } catch {
            throw CourierError(.malformedResponse, "The response body is not valid for its Content-Encoding; it cannot be read.", url: url, underlyingError: error)
        }
        decodedBytes += current.readableBytes
        // The limit applies from the first kilobyte on: a tiny body may legitimately grow more.
        if decodedBytes > 1024, decodedBytes / maximumRatio > compressedBytes {
            throw CourierError(
                .decompressionLimitExceeded,
                "The compressed body expanded more than \(maximumRatio) times its size; it was refused as a possible zip bomb. Raise the decompression ratio if it is legitimate.",
                url: url
            )
        }
        return current
    }

    /// Checks that every layer ended where the body did.
    func finish() throws(CourierError) {
        guard layers.allSatisfy(\.isFinished) else {
            throw CourierError(.malformedResponse, "The compressed response body ended before its compressed stream did; it was cut short.", url: url)
        }
    }
}
