import Foundation
import NIOCore

/// Undoes the content codings of a response body (RFC 9110 §8.4), every layer, in the reverse
/// of the order `Content-Encoding` lists them: `gzip, gzip` is inflated twice.
///
/// gzip and deflate are undone by zlib; br (RFC 7932) and zstd (RFC 8878) by the system's
/// libbrotli and libzstd, where they can be loaded (``SystemDecompressor``).
///
/// Made per response on the loop that delivers it, and used there only. A response that has
/// no body (to HEAD, 1xx, 204, 304) gets no decoder, whatever its fields announce. A response
/// that lists a coding Courier cannot undo (or more layers than it undoes) gets none either:
/// its body is delivered as received, `Content-Encoding` intact, as curl, OkHttp and
/// AsyncHTTPClient deliver it, so that no byte a peer would hand over is lost. An empty body
/// is empty in any coding. A body that grows more than the ratio limit fails with
/// ``CourierError/Kind/decompressionLimitExceeded`` as soon as a layer yields too much, so no
/// piece is ever inflated past it, and so does a zstd stream that needs a window over 8 MiB
/// (RFC 9659); one that ends inside a compressed stream, or is not what its coding says,
/// with ``CourierError/Kind/malformedResponse``.
final class ContentDecoder {
    /// The layers in the order they are undone: the coding listed last was applied last, so
    /// it comes first.
    private let layers: [any Decompressor]
    private let maximumRatio: Int
    private let url: URL
    private var compressedBytes = 0
    private var decodedBytes = 0

    private init(layers: [any Decompressor], maximumRatio: Int, url: URL) {
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

    /// The codings Courier undoes on this machine: gzip and deflate always, br and zstd where
    /// the system's libbrotli and libzstd load.
    static let decodedCodings: Set<String> = {
        var codings: Set<String> = ["gzip", "x-gzip", "deflate"]
        if SystemDecompressor.Coding.brotli.isAvailable { codings.insert("br") }
        if SystemDecompressor.Coding.zstd.isAvailable { codings.insert("zstd") }
        return codings
    }()

    /// The decoder for a response with these `Content-Encoding` values, or `nil` when its body
    /// is delivered as received: no coding, only `identity`, decompression off, no body, a
    /// coding Courier cannot undo, or more than ``maximumLayers`` layers.
    static func make(
        encodings: [String], method: String, status: Int, decompression: Decompression, url: URL
    ) throws(CourierError) -> ContentDecoder? {
        guard case .enabled(let ratio) = decompression, hasBody(method: method, status: status),
            let codings = decodable(encodings)
        else { return nil }
        var layers: [any Decompressor] = []
        for coding in codings.reversed() {
            do {
                switch coding {
                case "br": layers.append(try SystemDecompressor(.brotli))
                case "zstd": layers.append(try SystemDecompressor(.zstd))
                default: layers.append(try Inflater(allowsRaw: coding == "deflate"))
                }
            } catch {
                throw CourierError(.transport, "The \(coding) decompressor could not be set up (out of memory).", url: url)
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
        // What the body may have grown to by now: the ratio limit applies from the first
        // kilobyte on (a tiny body may legitimately grow more). Every layer is held to it,
        // inside the decoder, so that a bomb stops within one buffer of the limit.
        let (allowedTotal, overflow) = compressedBytes.multipliedReportingOverflow(by: maximumRatio)
        let allowed = max(1024, overflow ? Int.max : allowedTotal) - decodedBytes
        var current = piece
        do {
            for layer in layers {
                var output = ByteBuffer()
                try layer.decompress(current, into: &output, limit: allowed)
                current = output
            }
        } catch .tooLarge {
            throw ratioExceeded()
        } catch .windowTooLarge {
            throw CourierError(
                .decompressionLimitExceeded,
                "The zstd response body needs a window larger than 8 MiB, more than a client has to keep (RFC 9659); ask the server for another coding.",
                url: url
            )
        } catch {
            throw CourierError(.malformedResponse, "The response body is not valid for its Content-Encoding; it cannot be read.", url: url, underlyingError: error)
        }
        decodedBytes += current.readableBytes
        return current
    }

    private func ratioExceeded() -> CourierError {
        CourierError(
            .decompressionLimitExceeded,
            "The compressed body expanded more than \(maximumRatio) times its size; it was refused as a possible zip bomb. Raise the decompression ratio if it is legitimate.",
            url: url
        )
    }

    /// Checks that every layer ended where the body did; an empty body is empty in any coding
    /// (curl, browsers and AsyncHTTPClient deliver it so).
    func finish() throws(CourierError) {
        guard compressedBytes == 0 || layers.allSatisfy(\.isFinished) else {
            throw CourierError(.malformedResponse, "The compressed response body ended before its compressed stream did; it was cut short.", url: url)
        }
    }
}

extension Decompression {
    /// The `Accept-Encoding` a client sends when decompression is on and the request sets
    /// none: every coding ``ContentDecoder/decodedCodings`` holds, as browsers ask, so that a
    /// server or a CDN may answer with its smallest body.
    package static let acceptEncoding: String = {
        (["gzip", "deflate", "br", "zstd"].filter(ContentDecoder.decodedCodings.contains)).joined(separator: ", ")
    }()
}
