import Courier
import CourierTesting
import Foundation
import Testing

/// RFC 9111 §4.3.2: the application's own `If-None-Match` and `If-Modified-Since` are answered
/// by the cache from the response it would deliver, and the network's answers still update
/// what is stored.
@Suite("Cache: the application's conditional requests")
struct ConditionalRequestCacheTests {
    @Test(arguments: [
        ("v1", "\"v1\""), ("v1", "W/\"v1\""), ("v1", "\"x\", \"v1\", \"y\""), ("v1", "\"x\",\"y\", \"v1\""), ("v1", "*"), ("v1", "v1"),
    ])
    func aFreshResponseWithAMatchingTagIsNotModified(etag: String, ifNoneMatch: String) async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60"), ("etag", etag), ("h", "X-Extra: 1")], key: "\(etag)-\(ifNoneMatch)")
            _ = try await fetch(client, path)
            let answer = try await fetch(client, path, headers: ["If-None-Match": ifNoneMatch])
            #expect(answer.status == 304, "\(ifNoneMatch)")
            #expect(answer.source == .cache)
            #expect(answer.body.isEmpty)
            #expect(answer.headers["ETag"] == "\"\(etag)\"")
            #expect(answer.headers["Cache-Control"] == "max-age=60")
            #expect(answer.headers["Age"] != nil)
            #expect(answer.headers["Content-Type"] == nil && answer.headers["X-Extra"] == nil)
            #expect(answer.request?.headers["If-None-Match"] == ifNoneMatch)
            #expect(server.requests(for: path).count == 1)
        }
    }

    @Test func aTagThatDoesNotMatchGetsTheStoredResponse() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60"), ("etag", "v2")])
            _ = try await fetch(client, path)
            let answer = try await fetch(client, path, headers: ["If-None-Match": "\"v1\", \"v1,v2\""])
            #expect(answer.status == 200)
            #expect(answer.source == .cache)
            #expect(answer.bodyText == "hit 1")
            #expect(server.requests(for: path).count == 1)
        }
    }

    @Test func ifNoneMatchTakesPrecedenceOverIfModifiedSince() async throws {
        try await withCache { server, client, now in
            let modified = now.http(-5000)
            let path = cacheable([("cc", "max-age=60"), ("etag", "v1"), ("last_modified", modified)])
            _ = try await fetch(client, path)
            // The date alone would say "modified"; the tag says "not modified".
            let matching = try await fetch(client, path, headers: ["If-None-Match": "\"v1\"", "If-Modified-Since": now.http(-9000)])
            #expect(matching.status == 304)
            // The date alone would say "not modified"; the tag says "modified".
            let other = try await fetch(client, path, headers: ["If-None-Match": "\"v0\"", "If-Modified-Since": now.http()])
            #expect(other.status == 200)
            #expect(server.requests(for: path).count == 1)
        }
    }

    @Test(arguments: [(-3000.0, 304), (-2000.0, 304), (-4000.0, 200)])
    func ifModifiedSinceIsComparedWithLastModified(since: Double, status: Int) async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=600"), ("last_modified", now.http(-3000))], key: "lm\(since)")
            _ = try await fetch(client, path)
            let answer = try await fetch(client, path, headers: ["If-Modified-Since": now.http(since)])
            #expect(answer.status == status)
            #expect(answer.source == .cache)
            #expect(server.requests(for: path).count == 1)
        }
    }

    @Test func withoutLastModifiedTheDateIsCompared() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=600"), ("date", now.http())])
            _ = try await fetch(client, path)
            #expect(try await fetch(client, path, headers: ["If-Modified-Since": now.http(10)]).status == 304)
            #expect(try await fetch(client, path, headers: ["If-Modified-Since": now.http(-3000)]).status == 200)
            // Not an HTTP date: ignored, as RFC 9110 §13.1.3 requires.
            #expect(try await fetch(client, path, headers: ["If-Modified-Since": "yesterday"]).status == 200)
            #expect(server.requests(for: path).count == 1)
        }
    }

    @Test func aStaleResponseIsRevalidatedWithTheCachesValidatorsThenAnswered() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10"), ("etag", "v1"), ("not_modified_h", "X-Fresh: yes")])
            _ = try await fetch(client, path)
            now.advance(60)
            let answer = try await fetch(client, path, headers: ["If-None-Match": "\"v1\""])
            #expect(answer.status == 304)
            #expect(answer.source == .revalidated)
            #expect(server.requests(for: path).count == 2)
            #expect(server.requests(for: path).last?.header("If-None-Match") == "\"v1\"")
            // The network's 304 freshened the stored response: the next request is a hit.
            let next = try await fetch(client, path)
            #expect(next.source == .cache && next.status == 200)
            #expect(next.headers["X-Fresh"] == "yes")
            #expect(server.requests(for: path).count == 2)
        }
    }

    @Test func aStaleResponseThatChangedGivesTheNewOneAndStoresIt() async throws {
        try await withCache { server, client, now in
            // The origin's tag is now v2; the application and the cache both hold v1.
            let stored = cacheable([("cc", "max-age=10"), ("etag", "v2")])
            let request = CourierRequest<CourierResponse>(path: stored)
            let old = CourierResponse(
                status: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=10", "Date": now.http()], body: Data("old".utf8),
                url: server.url(stored))
            try await client.storeCachedResponse(old, for: request)
            now.advance(60)
            let answer = try await fetch(client, stored, headers: ["If-None-Match": "\"v1\""])
            #expect(answer.status == 200)
            #expect(answer.headers["ETag"] == "\"v2\"")
            #expect(answer.bodyText == "hit 1")
            let next = try await fetch(client, stored, headers: ["If-None-Match": "\"v2\""])
            #expect(next.status == 304 && next.source == .cache)
            #expect(server.requests(for: stored).count == 1)
        }
    }

    @Test func onAMissTheApplicationsConditionsGoToTheOrigin() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60"), ("etag", "v1")])
            let answer = try await fetch(client, path, headers: ["If-None-Match": "\"v1\""])
            #expect(answer.status == 304)
            #expect(answer.source == .network)
            #expect(server.requests(for: path).last?.header("If-None-Match") == "\"v1\"")
            // A 304 is not stored: the next request without conditions goes to the network.
            #expect(try await fetch(client, path).source == .network)
            // That 200 is stored, and answers the conditions from then on.
            #expect(try await fetch(client, path, headers: ["If-None-Match": "\"v1\""]).source == .cache)
            #expect(server.requests(for: path).count == 2)
        }
    }

    @Test func onlyA200IsReplaced() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60"), ("etag", "v1"), ("status", "404")])
            _ = try await fetch(client, path)
            let answer = try await fetch(client, path, headers: ["If-None-Match": "\"v1\""])
            #expect(answer.status == 404)
            #expect(answer.source == .cache)
        }
    }

    @Test(arguments: ["If-Match", "If-Unmodified-Since", "If-Range"])
    func conditionsTheCacheCannotCheckGoToTheOrigin(field: String) async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=60"), ("etag", "v1")], key: field)
            _ = try await fetch(client, path)
            let value = field == "If-Unmodified-Since" ? now.http() : "\"v1\""
            let answer = try await fetch(client, path, headers: Headers([(field, value)]))
            #expect(answer.source == .network)
            #expect(server.requests(for: path).count == 2)
        }
    }
}
