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
        let off = try ContentDecoder.make(encodings: ["br"], method: "GET", status: 200, decompression: .disabled, url: url)
        #expect(off == nil)
    }

    @Test(
        "more than eight layers, or an unknown one, is delivered as received: no decoder",
        arguments: [
            Array(repeating: "gzip", count: 9), ["gzip", "br"], ["br, gzip"], ["compress"], ["zstd"], ["x-custom"],
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
