import CourierTesting
import Foundation
import NIOCore
import Testing

@testable import Courier

@Suite("ContentDecoder")
struct ContentDecoderTests {
    private let url = URL(string: "http://127.0.0.1/x")!

    private func decoder(_ encodings: [String], method: String = "GET", status: Int = 200, ratio: Int = 100) throws -> ContentDecoder? {
        try ContentDecoder.make(encodings: encodings, method: method, status: status, decompression: .enabled(maximumRatio: ratio), url: url)
    }

    @Test("responses without a body, identity, and decompression off get no decoder")
    func noDecoder() throws {
        #expect(try decoder(["gzip"], method: "HEAD") == nil)
        for status in [100, 103, 204, 304] { #expect(try decoder(["gzip"], status: status) == nil) }
        #expect(try decoder([]) == nil)
        #expect(try decoder(["identity", " IDENTITY "]) == nil)
        let off = try ContentDecoder.make(encodings: ["gzip"], method: "GET", status: 200, decompression: .disabled, url: url)
        #expect(off == nil)
    }

    @Test(
        "more than eight layers, or an unknown one, is delivered as received: no decoder",
        arguments: [
            Array(repeating: "gzip", count: 9), ["gzip", "compress"], ["compress, gzip"], ["compress"], ["x-custom"], ["br", "x-custom"],
        ])
    func passedThrough(codings: [String]) throws {
        #expect(try decoder(codings) == nil)
    }

    @Test("an empty body is empty in any coding")
    func emptyBody() throws {
        let decoder = try #require(try decoder(["gzip, deflate"]))
        try decoder.finish()
    }

    @Test("two gzip members one after the other decode as one body, fed in pieces of any size", arguments: [1, 7, 1000])
    func concatenatedMembers(pieceSize: Int) throws {
        let bytes = try TestGzip.compress(Array("first ".utf8)) + TestGzip.compress(Array("second".utf8))
        let decoder = try #require(try decoder(["gzip"]))
        var output = ""
        var index = 0
        while index < bytes.count {
            let piece = ByteBuffer(bytes: bytes[index..<min(bytes.count, index + pieceSize)])
            output += String(buffer: try decoder.decode(piece))
            index += pieceSize
        }
        try decoder.finish()
        #expect(output == "first second")
    }

    private func decodeWhole(_ bytes: [UInt8], with decoder: ContentDecoder, pieceSize: Int) throws -> [UInt8] {
        try decoder.decodeWhole(bytes, pieceSize: pieceSize)
    }

    @Test("br and zstd are undone by the system's libraries, alone and stacked with gzip", arguments: [1, 5, 4096])
    func brotliAndZstd(pieceSize: Int) throws {
        let text = Array((0..<400).map { "line \($0) of a body worth compressing\n" }.joined().utf8)
        let brotli = try SystemCompression.brotli.compress(text)
        let zstd = try SystemCompression.zstd.compress(text)
        #expect(try decodeWhole(brotli, with: #require(try decoder(["br"])), pieceSize: pieceSize) == text)
        #expect(try decodeWhole(zstd, with: #require(try decoder(["zstd"])), pieceSize: pieceSize) == text)
        // Listed in the order applied: br first, then gzip over it.
        let stacked = try TestGzip.compress(brotli)
        #expect(try decodeWhole(stacked, with: #require(try decoder(["br, gzip"])), pieceSize: pieceSize) == text)
        let three = try SystemCompression.brotli.compress(TestGzip.compress(zstd))
        #expect(try decodeWhole(three, with: #require(try decoder(["zstd", "gzip", "BR"])), pieceSize: pieceSize) == text)
    }

    @Test("zstd frames one after the other decode as one body; bytes after a brotli stream are malformed")
    func framesAndTrailingBytes() throws {
        let frames = try SystemCompression.zstd.compress(Array("first ".utf8)) + SystemCompression.zstd.compress(Array("second".utf8))
        #expect(try decodeWhole(frames, with: #require(try decoder(["zstd"])), pieceSize: 3) == Array("first second".utf8))
        let brotli = try SystemCompression.brotli.compress(Array("one stream".utf8)) + [0x01, 0x02]
        #expect {
            _ = try decodeWhole(brotli, with: #require(try decoder(["br"])), pieceSize: 1000)
        } throws: { error in
            (error as? CourierError)?.kind == .malformedResponse
        }
    }

    @Test("a damaged or cut br or zstd body is malformed", arguments: ["br", "zstd"])
    func damagedOrCut(coding: String) throws {
        let compression = try #require(SystemCompression(contentCoding: coding))
        let bytes = try compression.compress(Array(String(repeating: "damage me ", count: 300).utf8))
        var damaged = bytes
        for index in stride(from: 4, to: damaged.count, by: 5) { damaged[index] ^= 0x5A }
        let cut = Array(bytes.prefix(bytes.count / 2))
        for (body, name) in [(damaged, "damaged"), (cut, "cut")] {
            let decoder = try #require(try decoder([coding]))
            var kind: CourierError.Kind?
            do { _ = try decodeWhole(body, with: decoder, pieceSize: 64) } catch let error as CourierError { kind = error.kind }
            #expect(kind == .malformedResponse, "\(name)")
        }
    }

    @Test("a zstd frame that needs a window over 8 MiB is refused before anything is decoded (RFC 9659)")
    func zstdWindowLimit() throws {
        // A frame by hand: the magic number, a header with only a window descriptor (2^24
        // bytes: exponent 14, mantissa 0), and one last RLE block of 100 bytes of "a".
        let frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 14 << 3, 0x23, 0x03, 0x00, UInt8(ascii: "a")]
        #expect {
            _ = try decodeWhole(frame, with: #require(try decoder(["zstd"])), pieceSize: 100)
        } throws: { error in
            (error as? CourierError)?.kind == .decompressionLimitExceeded && (error as? CourierError)?.message.contains("8 MiB") == true
        }
        // The same block under an 8 MiB window (exponent 13) is fine.
        var allowed = frame
        allowed[5] = 13 << 3
        #expect(try decodeWhole(allowed, with: #require(try decoder(["zstd"])), pieceSize: 100) == Array(repeating: UInt8(ascii: "a"), count: 100))
    }

    @Test("a bomb in any coding stops within one buffer of the ratio, in a single piece", arguments: ["gzip", "br", "zstd"])
    func bombInOnePiece(coding: String) throws {
        let zeros = [UInt8](repeating: 0, count: 64 << 20)
        let bomb = try coding == "gzip" ? TestGzip.compress(zeros) : #require(SystemCompression(contentCoding: coding)).compress(zeros, level: 3)
        let decoder = try #require(try decoder([coding], ratio: 10))
        #expect {
            _ = try decoder.decode(ByteBuffer(bytes: bomb))
        } throws: { error in
            (error as? CourierError)?.kind == .decompressionLimitExceeded
        }
    }

    @Test("a body that grows past the ratio is refused as a bomb")
    func ratio() throws {
        let zeros = try TestGzip.compress(Array(repeating: 0, count: 1_000_000))
        let decoder = try #require(try decoder(["gzip"], ratio: 10))
        #expect {
            _ = try decoder.decode(ByteBuffer(bytes: zeros))
        } throws: { error in
            (error as? CourierError)?.kind == .decompressionLimitExceeded
        }
    }
}

extension ContentDecoder {
    /// Feeds `bytes` to the decoder in pieces of `pieceSize`, as a response delivers them,
    /// then finishes it.
    func decodeWhole(_ bytes: [UInt8], pieceSize: Int) throws(CourierError) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            var piece = try decode(ByteBuffer(bytes: bytes[index..<min(bytes.count, index + pieceSize)]))
            output += piece.readBytes(length: piece.readableBytes) ?? []
            index += pieceSize
        }
        try finish()
        return output
    }
}
