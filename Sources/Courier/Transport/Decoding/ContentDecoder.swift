import Foundation
import NIOCore

/// Undoes the content codings of a response body (RFC 9110 §8.4), every layer, in the reverse
/// of the order `Content-Encoding` lists them: `gzip, gzip` is inflated twice.
///
/// Made per response on the loop that delivers it, and used there only. A response that has
/// no body (to HEAD, 1xx, 204, 304) gets no decoder, whatever its fields announce. A response
/// that lists a coding Courier cannot undo (or more layers than it undoes) gets none either:
/// its body is delivered as received, `Content-Encoding` intact, as curl, OkHttp and
/// AsyncHTTPClient deliver it, so that no byte a peer would hand over is lost. An empty body
/// is empty in any coding. A body that grows more than the ratio limit fails with
/// ``CourierError/Kind/decompressionLimitExceeded``; one that ends inside a compressed stream,
/// or is not what its coding says, with ``CourierError/Kind/malformedResponse``.
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

    /// The most layers undone; a response that lists more is delivered as received.
    static let maximumLayers = 8

    /// The codings Courier undoes.
    static let decodedCodings: Set<String> = ["gzip", "x-gzip", "deflate"]

    /// The decoder for a response with these `Content-Encoding` values, or `nil` when its body
    /// is delivered as received: no coding, only `identity`, decompression off, no body, a
    /// coding Courier cannot undo, or more than ``maximumLayers`` layers.
    static func make(
        encodings: [String], method: String, status: Int, decompression: Decompression, url: URL
    ) throws(CourierError) -> ContentDecoder? {
        guard case .enabled(let ratio) = decompression, hasBody(method: method, status: status),
            let codings = decodable(encodings)
        else { return nil }
        var layers: [Inflater] = []
        for coding in codings.reversed() {
            do {
                layers.append(try Inflater(allowsRaw: coding == "deflate"))
            } catch {
                throw CourierError(.transport, "The decompressor could not be set up.", url: url)
            }
        }
        return ContentDecoder(layers: layers, maximumRatio: max(1, ratio), url: url)
    }

    /// The codings `encodings` lists, lower-cased and without `identity`, when Courier undoes
    /// every one of them; `nil` when there is nothing to undo or something it cannot undo.
    static func decodable(_ encodings: [String]) -> [String]? {
        let codings = FieldList.elements(encodings).map { $0.lowercased() }.filter { $0 != "identity" }
        guard !codings.isEmpty, codings.count <= maximumLayers, codings.allSatisfy(decodedCodings.contains) else { return nil }
        return codings
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

    /// Checks that every layer ended where the body did; an empty body is empty in any coding
    /// (curl, browsers and AsyncHTTPClient deliver it so).
    func finish() throws(CourierError) {
        guard compressedBytes == 0 || layers.allSatisfy(\.isFinished) else {
            throw CourierError(.malformedResponse, "The compressed response body ended before its compressed stream did; it was cut short.", url: url)
        }
    }
}
