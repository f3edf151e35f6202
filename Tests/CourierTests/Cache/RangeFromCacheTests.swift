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
            let request = CourierRequest<CourierResponse>(path: "/cacheable?key=coded&cc=max-age=60")
            let stored = CourierResponse(
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

    // MARK: Stored parts

    /// The whole resource of `/range/100` as the server has it, read without a cache.
    private func resource(_ server: TestServer, _ path: String) async throws -> Data {
        try await withClient(server) { client in try await client.send(CourierRequest<CourierResponse>(path: path)).body }
    }

    @Test func aPartTheServerSentIsStoredAndAnswersTheSameAndSmallerRanges() async throws {
        try await withCache { server, client, _ in
            let path = "/range/100?header=Cache-Control:max-age=600"
            let full = try await resource(server, path)
            let first = try await fetch(client, path, headers: ["Range": "bytes=-10"])
            #expect(first.status == 206 && first.source == .network)
            #expect(first.headers["Content-Range"] == "bytes 90-99/100")
            for (range, bytes) in [("bytes=-10", 90...99), ("bytes=92-95", 92...95), ("bytes=95-", 95...99), ("bytes=-1", 99...99)] {
                let answer = try await fetch(client, path, headers: ["Range": range])
                #expect(answer.status == 206 && answer.source == .cache, "\(range)")
                #expect(answer.body == full[bytes], "\(range)")
                #expect(answer.headers["Content-Range"] == "bytes \(bytes.lowerBound)-\(bytes.upperBound)/100")
            }
            // Bytes the part does not hold go to the server.
            #expect(try await fetch(client, path, headers: ["Range": "bytes=80-95"]).source == .network)
            // A part answers no request for the whole resource.
            #expect(try await fetch(client, path).source == .network)
            #expect(server.requests(for: path).count == 4)
        }
    }

    @Test func partsThatTouchAreJoinedAndBecomeTheCompleteResponse() async throws {
        try await withCache { server, client, _ in
            let path = "/range/30?header=Cache-Control:max-age=600"
            let full = try await resource(server, path)
            _ = try await fetch(client, path, headers: ["Range": "bytes=0-9"])
            _ = try await fetch(client, path, headers: ["Range": "bytes=20-29"])
            // Not touching: the newer part replaced the older one.
            #expect(try await fetch(client, path, headers: ["Range": "bytes=0-9"]).source == .network)
            _ = try await fetch(client, path, headers: ["Range": "bytes=10-19"])
            let joined = try await fetch(client, path, headers: ["Range": "bytes=5-14"])
            #expect(joined.source == .cache && joined.body == full[5...14])
            _ = try await fetch(client, path, headers: ["Range": "bytes=15-"])
            // 0-19 and 15-29 cover the resource: it is stored whole and answers a plain GET.
            let whole = try await fetch(client, path)
            #expect(whole.status == 200 && whole.source == .cache)
            #expect(whole.body == full)
            #expect(whole.headers["Content-Range"] == nil && whole.headers["Content-Length"] == "30")
            #expect(server.requests(for: path).count == 6)
        }
    }

    @Test func partsOfDifferentRepresentationsAreNotJoined() async throws {
        try await withCache { server, client, _ in
            // Each request gets the next version, with its own entity tag.
            let path = "/range/20?versions=3&header=Cache-Control:max-age=600"
            _ = try await fetch(client, path, headers: ["Range": "bytes=0-9"])
            // Version 2's bytes 10-19 are not joined to version 1's 0-9: they replace them.
            _ = try await fetch(client, path, headers: ["Range": "bytes=10-19"])
            #expect(try await fetch(client, path, headers: ["Range": "bytes=0-9"]).source == .network)
            // Version 3 from here on: its 0-9 and 10-19 join into the whole resource.
            #expect(try await fetch(client, path, headers: ["Range": "bytes=10-19"]).source == .network)
            #expect(try await fetch(client, path).source == .cache)
            #expect(server.requests(for: path).count == 4)
        }
    }

    @Test func aPartWhoseContentRangeDoesNotMatchItsBodyIsNotStored() async throws {
        try await withCache { server, client, _ in
            let lying = "/range/100?lie=start&header=Cache-Control:max-age=600"
            _ = try await fetch(client, lying, headers: ["Range": "bytes=0-9"])
            #expect(try await fetch(client, lying, headers: ["Range": "bytes=0-9"]).source == .network)
        }
    }

    @Test func aPartWithoutFreshnessOrWithNoStoreIsNotReused() async throws {
        try await withCache { server, client, _ in
            for path in ["/range/50?header=Cache-Control:no-store", "/range/50?header=Cache-Control:max-age=0"] {
                _ = try await fetch(client, path, headers: ["Range": "bytes=0-9"])
                #expect(try await fetch(client, path, headers: ["Range": "bytes=0-9"]).source == .network, "\(path)")
            }
        }
    }

    @Test func partsKeptOnDiskAreJoinedByTheNextClient() async throws {
        try await withDiskCache { _, folder in
            try await withServer { server in
                let path = "/range/40?header=Cache-Control:max-age=600"
                let full = try await resource(server, path)
                try await withCachingClient(server, storage: try DiskCacheStorage(directory: folder)) { client, _ in
                    _ = try await fetch(client, path, headers: ["Range": "bytes=0-19"])
                }
                // Another client on the same folder, as another process would be.
                try await withCachingClient(server, storage: try DiskCacheStorage(directory: folder)) { client, _ in
                    #expect(try await fetch(client, path, headers: ["Range": "bytes=3-7"]).body == full[3...7])
                    _ = try await fetch(client, path, headers: ["Range": "bytes=20-"])
                    let whole = try await fetch(client, path)
                    #expect(whole.source == .cache && whole.body == full)
                }
                #expect(server.requests(for: path).count == 3)
            }
        }
    }

    @Test func aGetWithAPartFromTheStartAsksOnlyForTheRest() async throws {
        try await withCache { server, client, _ in
            let path = "/range/30?header=Cache-Control:max-age=600"
            let full = try await resource(server, path)
            _ = try await fetch(client, path, headers: ["Range": "bytes=0-9"])
            let whole = try await fetch(client, path)
            #expect(whole.status == 200 && whole.source == .network)
            #expect(whole.body == full)
            #expect(whole.headers["Content-Range"] == nil && whole.headers["Content-Length"] == "30")
            let asked = try #require(server.requests(for: path).last)
            #expect(asked.header("Range") == "bytes=10-")
            #expect(asked.header("If-Range") == whole.headers["ETag"])
            // Stored whole: the next request needs no server.
            #expect(try await fetch(client, path).source == .cache)
            #expect(server.requests(for: path).count == 3)
        }
    }

    @Test func aChangedRepresentationIsDeliveredWholeInsteadOfJoined() async throws {
        try await withCache { server, client, _ in
            let path = "/range/30?versions=2&header=Cache-Control:max-age=600"
            _ = try await fetch(client, path, headers: ["Range": "bytes=0-9"])
            // Version 2 has another entity tag: If-Range fails and the server sends it all.
            let whole = try await fetch(client, path)
            #expect(whole.status == 200 && whole.body.count == 30)
            #expect(whole.headers["Content-Range"] == nil)
            #expect(try await fetch(client, path).source == .cache)
            #expect(server.requests(for: path).count == 2)
        }
    }

    @Test func aRestThatDoesNotFitDropsThePartAndAsksForTheWhole() async throws {
        try await withServer { server in
            let storage = MemoryCacheStorage()
            try await withCachingClient(server, storage: storage) { client, now in
                // An honest part of bytes 0-9, stored as if a range request had brought it; the
                // server then claims the rest starts at byte 11.
                let path = "/range/30?lie=start&header=Cache-Control:max-age=600"
                let part = try await storeFirstTenBytes(of: path, tag: "\"range-30-0\"", on: server, in: storage, at: now)
                let whole = try await fetch(client, path)
                #expect(whole.status == 200 && whole.body.count == 30)
                let requests = server.requests(for: path)
                #expect(requests.count == 2)
                #expect(requests.first?.header("Range") == "bytes=10-")
                #expect(requests.last?.header("Range") == nil)
                #expect(try await storage.entries(forKey: part.key).map(\.status) == [200])
            }
        }
    }
}
