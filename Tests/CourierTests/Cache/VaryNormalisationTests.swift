import CourierTesting
import Foundation
import Testing

@testable import Courier

/// RFC 9111 §4.1: `Accept-Encoding` and `Accept-Language` select a stored variant whatever the
/// order and case of their elements; every other field is compared as sent, whitespace aside.
@Suite("Cache: Vary on Accept-Encoding and Accept-Language")
struct VaryNormalisationTests {
    static func key(_ field: String, _ value: String) -> String? {
        CacheKey.variant(request: Headers([(field, value)]), response: ["Vary": field])
    }

    @Test(arguments: [
        ("Accept-Encoding", "gzip, br", "BR;q=1.0,gzip"),
        ("Accept-Encoding", "gzip;q=0.5, deflate", "deflate , GZIP; Q=0.500"),
        ("Accept-Encoding", "identity;q=0", "identity; q=0.000"),
        ("Accept-Language", "en-US, fr;q=0.5", "fr;q=0.50, EN-us"),
        ("Accept-Language", "de", "DE;q=1"),
    ])
    func sameMeaningSameKey(field: String, first: String, second: String) {
        #expect(Self.key(field, first) == Self.key(field, second), "\(first) / \(second)")
    }

    @Test(arguments: [
        ("Accept-Encoding", "gzip", "gzip;q=0"),
        ("Accept-Encoding", "gzip, br", "gzip"),
        ("Accept-Encoding", "gzip;q=0.5", "gzip;q=0.6"),
        ("Accept-Encoding", "gzip;q=2", "gzip"),  // not a qvalue: matches only itself
        ("Accept-Encoding", "gzip;q=0.5000", "gzip;q=0.5"),
        ("Accept-Language", "en", "en-GB"),
        ("Accept", "text/html, application/json", "application/json, text/html"),  // order kept for other fields
        ("X-Variant", "A", "a"),
    ])
    func differentMeaningDifferentKey(field: String, first: String, second: String) {
        #expect(Self.key(field, first) != Self.key(field, second), "\(first) / \(second)")
    }

    @Test(arguments: [("1", "1"), ("1.000", "1"), ("1.", "1"), ("0", "0"), ("0.500", "0.5"), ("0.05", "0.05"), ("0.001", "0.001")])
    func qvaluesInTheirShortestForm(text: String, shortest: String) {
        #expect(CacheKey.qvalue(text) == shortest)
    }

    @Test(arguments: ["1.001", "2", "0.1234", "-0", ".5", "0.5a", "", "1e0"])
    func notQvalues(text: String) {
        #expect(CacheKey.qvalue(text) == nil)
    }

    @Test func aReorderedAcceptEncodingIsAHit() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60"), ("vary", "Accept-Encoding")])
            #expect(try await fetch(client, path, headers: ["Accept-Encoding": "gzip, br"]).source == .network)
            let reordered = try await fetch(client, path, headers: ["Accept-Encoding": "BR, gzip;q=1"])
            #expect(reordered.source == .cache)
            #expect(try await fetch(client, path, headers: ["Accept-Encoding": "br"]).source == .network)
            #expect(server.requests(for: path).count == 2)
        }
    }
}
