import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A request for one byte range is answered from a complete stored response (RFC 9111 §3.4);
/// anything the cache cannot answer exactly goes to the server untouched.
@Suite("Cache: byte ranges from stored responses")
struct RangeFromCacheTests {
    @Test(arguments: [
        ("bytes=0-1", RangeRequest.Spec.from(first: 0, last: 1)), ("bytes=5-", .from(first: 5, last: nil)), ("bytes=-3", .suffix(length: 3)),
        (" BYTES = 2 - 4 ", nil), ("Bytes=2-4", .from(first: 2, last: 4)), ("bytes=4-2", nil), ("bytes=0-1,3-4", nil), ("items=0-1", nil),
        ("bytes=-", nil), ("bytes=a-1", nil), ("bytes=99999999999999999999-", nil), ("bytes=", nil),
    ])
    func parsing(text: String, spec: RangeRequest.Spec?) {
        #expect(RangeRequest(text)?.spec == spec, "\(text)")
    }

    @Test(
        arguments: [
            ("bytes=0-1", 10, 0...1), ("bytes=8-20", 10, 8...9), ("bytes=9-", 10, 9...9), ("bytes=-3", 10, 7...9), ("bytes=-30", 10, 0...9),
        ] as [(String, Int64, ClosedRange<Int64>)])
    func satisfiableRanges(text: String, length: Int64, bytes: ClosedRange<Int64>) throws {
        #expect(try #require(RangeRequest(text)).bytes(in: length) == bytes)
    }

    @Test(arguments: [("bytes=10-", 10), ("bytes=-0", 10), ("bytes=0-", 0), ("bytes=-1", 0)] as [(String, Int64)])
    func unsatisfiableRanges(text: String, length: Int64) throws {
        #expect(try #require(RangeRequest(text)).bytes(in: length) == nil)
    }

    @Test(arguments: [("bytes=0-1", "hi", "bytes 0-1/5"), ("bytes=1-", "it 1", "bytes 1-4/5"), ("bytes=-1", "1", "bytes 4-4/5")])
    func aFreshStoredResponseAnswersARange(range: String, body: String, contentRange: String) async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")], key: range)
            #expect(try await fetch(client, path).bodyText == "hit 1")
            let partial = try await fetch(client, path, headers: ["Range": range])
            #expect(partial.status == 206)
            #expect(partial.source == .cache)
            #expect(partial.bodyText == body)
            #expect(partial.headers["Content-Range"] == contentRange)
            #expect(partial.headers["Content-Length"] == String(body.utf8.count))
            #expect(partial.headers["Age"] != nil)
            #expect(server.requests(for: path).count == 1)
        }
    }

    @Test(arguments: ["bytes=10-", "bytes=0-1, 3-4", "lines=0-1"])
    func rangesTheCacheCannotAnswerGoToTheServer(range: String) async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")], key: range)
            _ = try await fetch(client, path)
            let answer = try await fetch(client, path, headers: ["Range": range])
            #expect(answer.source == .network)
            #expect(server.requests(for: path).last?.header("Range") == range)
            #expect(server.requests(for: path).count == 2)
        }
    }

    @Test func aStaleStoredResponseLeavesTheRangeToTheServer() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10"), ("etag", "v1")])
            _ = try await fetch(client, path)
            now.advance(60)
            let answer = try await fetch(client, path, headers: ["Range": "bytes=0-1"])
            #expect(answer.source == .network)
            #expect(server.requests(for: path).last?.header("If-None-Match") == nil)
            // What the server answered to the range is not stored over the complete response.
            #expect(try await fetch(client, path, policy: .onlyIfCached).bodyText == "hit 1")
        }
    }

    @Test func aContentCodedStoredBodyIsNotCut() async throws {
        try await withCache { server, client, _ in
            let request = Request<Response>(path: "/cacheable?key=coded&cc=max-age=60")
            let stored = Response(
                status: 200, headers: ["Cache-Control": "max-age=60", "Content-Encoding": "gzip"], body: Data("decoded".utf8),
                url: server.url("/cacheable?key=coded&cc=max-age=60"))
            try await client.storeCachedResponse(stored, for: request)
            let answer = try await fetch(client, "/cacheable?key=coded&cc=max-age=60", headers: ["Range": "bytes=0-1"])
            #expect(answer.source == .network)
        }
    }

    @Test func onlyIfCachedWithoutAStoredResponseIs504() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            let answer = try await fetch(client, path, policy: .onlyIfCached, headers: ["Range": "bytes=0-1"])
            #expect(answer.status == 504)
            #expect(server.requests(for: path).isEmpty)
        }
    }

    @Test func aRangeWithIfRangeGoesToTheServer() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60"), ("etag", "v1")])
            _ = try await fetch(client, path)
            let answer = try await fetch(client, path, headers: ["Range": "bytes=0-1", "If-Range": "\"v1\""])
            #expect(answer.source == .network)
            #expect(server.requests(for: path).count == 2)
        }
    }
}
