import CourierTesting
import Foundation
import NIOCore
import PropertyBased
import Testing

@testable import Courier

@Suite("Property: content decoding")
struct ContentDecoderPropertyTests {
    static let url = URL(string: "http://127.0.0.1/x")!
    static let labels = ["gzip", "x-gzip", "deflate", "gzip, deflate", "deflate, gzip", "GZIP , identity", "identity", "br", "gzip, br", ""]

    /// The framings a body may arrive in.
    enum Framing: CaseIterable {
        case gzip, zlib, raw, brotli, zstd

        /// `Content-Encoding` for the framing.
        var label: String {
            switch self {
            case .gzip: return "gzip"
            case .zlib, .raw: return "deflate"
            case .brotli: return "br"
            case .zstd: return "zstd"
            }
        }

        /// `bytes` compressed in this framing.
        func compress(_ bytes: [UInt8]) throws -> [UInt8] {
            switch self {
            case .brotli: return try SystemCompression.brotli.compress(bytes)
            case .zstd: return try SystemCompression.zstd.compress(bytes)
            default: break
            }
            let gzip = try TestGzip.compress(bytes)
            // A gzip member without flags is a 10-byte header, the deflate stream and an
            // 8-byte trailer; the zlib framing wraps the same stream in its own header and
            // an Adler-32 of the data.
            let raw = Array(gzip[10..<(gzip.count - 8)])
            switch self {
            case .gzip, .brotli, .zstd: return gzip
            case .raw: return raw
            case .zlib:
                let adler = ContentDecoderPropertyTests.adler32(bytes)
                return [0x78, 0x9C] + raw + (0..<4).map { UInt8(truncatingIfNeeded: adler >> (24 - 8 * $0)) }
            }
        }
    }

    @Test("arbitrary bytes under any coding label end in a typed error or a value, never a trap")
    func arbitraryBytes() async {
        let label = Gen<Int>.value(in: 0..<Self.labels.count).map { Self.labels[$0] }
        await propertyCheck(count: Property.cases(1500), input: Property.bytes(upTo: 300), label, Gen<Int>.value(in: 1...64)) { bytes, label, pieceSize in
            let outcome = Self.decode(bytes, labels: [label], pieceSize: pieceSize)
            if case .failure(let error) = outcome {
                #expect([.malformedResponse, .unsupportedContentEncoding, .decompressionLimitExceeded].contains(error.kind))
            }
        }
    }

    @Test("any bytes compressed in any framing decode to themselves, fed in pieces of any size")
    func roundTrip() async throws {
        let framing = Gen<Int>.value(in: 0...4).map { Framing.allCases[$0] }
        await propertyCheck(count: Property.cases(800), input: Property.bytes(upTo: 2000), framing, Gen<Int>.value(in: 1...700), Gen<Int>.value(in: 1...2)) { bytes, framing, pieceSize, layers in
            var encoded = bytes
            for _ in 0..<layers { encoded = try framing.compress(encoded) }
            let outcome = Self.decode(encoded, labels: Array(repeating: framing.label, count: layers), pieceSize: pieceSize)
            #expect(try outcome.get() == bytes)
        }
    }

    @Test("a cut or altered gzip or zlib stream fails with a typed error, or decodes to the original when only a header byte changed")
    func damagedStreams() async throws {
        let framing = Gen<Bool>.bool.map { $0 ? Framing.gzip : Framing.zlib }
        await propertyCheck(count: Property.cases(1000), input: Property.bytes(upTo: 400), framing, Gen<UInt64>.value(), Gen<Int>.value(in: 1...64)) { bytes, framing, choice, pieceSize in
            let encoded = try framing.compress(bytes)
            let position = Int(choice >> 8) % encoded.count
            let cut = Array(encoded[..<position])
            switch Self.decode(cut, labels: [framing.label], pieceSize: pieceSize) {
            case .success(let decoded) where position == 0:
                // Nothing at all is an empty body, in any coding.
                #expect(decoded.isEmpty)
            case .success:
                Issue.record("a stream cut to \(position) of \(encoded.count) bytes decoded")
            case .failure(let error):
                #expect(position > 0, "an empty body failed: \(error)")
            }
            var altered = encoded
            altered[position] ^= UInt8(truncatingIfNeeded: choice | 1)
            if case .success(let decoded) = Self.decode(altered, labels: [framing.label], pieceSize: pieceSize) {
                #expect(decoded == bytes, "byte \(position) of \(encoded.count) altered")
            }
        }
    }

    @Test("a br or zstd stream cut anywhere fails with a typed error; an empty one is an empty body")
    func cutSystemStreams() async throws {
        let framing = Gen<Bool>.bool.map { $0 ? Framing.brotli : Framing.zstd }
        await propertyCheck(count: Property.cases(600), input: Property.bytes(upTo: 400), framing, Gen<UInt64>.value(), Gen<Int>.value(in: 1...64)) { bytes, framing, choice, pieceSize in
            let encoded = try framing.compress(bytes)
            let position = Int(choice >> 8) % encoded.count
            switch Self.decode(Array(encoded[..<position]), labels: [framing.label], pieceSize: pieceSize) {
            case .success(let decoded):
                #expect(position == 0 && decoded.isEmpty, "a \(framing) stream cut to \(position) of \(encoded.count) bytes decoded")
            case .failure(let error):
                #expect(position > 0, "an empty body failed: \(error)")
                #expect(error.kind == .malformedResponse)
            }
        }
    }

    // MARK: Helpers

    /// Runs a decoder over `bytes` in pieces, as a response delivers them.
    static func decode(_ bytes: [UInt8], labels: [String], pieceSize: Int) -> Result<[UInt8], CourierError> {
        Result { () throws(CourierError) -> [UInt8] in
            guard let decoder = try ContentDecoder.make(encodings: labels, method: "GET", status: 200, decompression: .enabled(maximumRatio: 1000), url: url) else {
                return bytes
            }
            return try decoder.decodeWhole(bytes, pieceSize: pieceSize)
        }
    }

    /// The Adler-32 checksum of `bytes` (RFC 1950).
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}
