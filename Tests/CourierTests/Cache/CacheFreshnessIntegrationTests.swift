import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Cache: storing and freshness")
struct CacheFreshnessIntegrationTests {
    @Test func maxAgeServesFromTheCacheWithAComputedAge() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=60")])
            let first = try await fetch(client, path)
            #expect(first.source == .network)
            now.advance(30)
            let second = try await fetch(client, path)
            #expect(second.source == .cache)
            #expect(second.bodyText == "hit 1")
            #expect(second.headers["Age"] == "30")
            #expect(server.requests(for: path).count == 1)
        }
    }

    @Test func aResponseWithoutValidatorsIsLoadedAgainOnceStale() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10")])
            _ = try await fetch(client, path)
            now.advance(11)
            let second = try await fetch(client, path)
            #expect(second.source == .network)
            #expect(second.bodyText == "hit 2")
        }
    }

    @Test func maxAgeTakesPrecedenceOverExpires() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=100"), ("date", now.http()), ("expires", now.http(-100))])
            _ = try await fetch(client, path)
            now.advance(50)
            #expect(try await fetch(client, path).source == .cache)
        }
    }

    @Test func expiresMinusDateIsTheLifetime() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("date", now.http()), ("expires", now.http(60))])
            _ = try await fetch(client, path)
            now.advance(30)
            #expect(try await fetch(client, path).source == .cache)
            now.advance(31)
            #expect(try await fetch(client, path).bodyText == "hit 2")
        }
    }

    @Test(arguments: ["0", "yesterday", "Sun, 06 Nov 1994 08:49:37 UTC"])
    func anInvalidExpiresMeansAlreadyExpired(expires: String) async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("expires", expires)])
            _ = try await fetch(client, path)
            let second = try await fetch(client, path)
            #expect(second.source == .network)
            #expect(second.bodyText == "hit 2")
        }
    }

    @Test func aTenthOfTheLastModifiedAgeIsTheHeuristicLifetime() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("date", now.http()), ("last_modified", now.http(-1000))])
            _ = try await fetch(client, path)
            now.advance(90)
            #expect(try await fetch(client, path).source == .cache)
            now.advance(20)
            #expect(try await fetch(client, path).source == .revalidated)
        }
    }

    @Test func noHeuristicForAStatusThatIsNotCacheableByDefault() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("status", "201"), ("date", now.http()), ("last_modified", now.http(-1000))])
            _ = try await fetch(client, path)
            #expect(try await fetch(client, path).bodyText == "hit 2")
        }
    }

    @Test func explicitFreshnessMakesAnyStatusCacheable() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("status", "201"), ("cc", "max-age=60")])
            _ = try await fetch(client, path)
            let second = try await fetch(client, path)
            #expect(second.status == 201)
            #expect(second.source == .cache)
        }
    }

    @Test func aNotFoundIsCachedByDefaultWithAHeuristic() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("status", "404"), ("date", now.http()), ("last_modified", now.http(-1000))])
            _ = try await fetch(client, path)
            #expect(try await fetch(client, path).source == .cache)
        }
    }

    @Test func noStoreIsNeverStored() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "no-store, max-age=60")])
            _ = try await fetch(client, path)
            #expect(try await fetch(client, path).bodyText == "hit 2")
        }
    }

    @Test func privateResponsesAreStoredByAPrivateCache() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "private, max-age=60")])
            _ = try await fetch(client, path)
            #expect(try await fetch(client, path).source == .cache)
        }
    }

    @Test func sharedMaxAgeIsIgnoredByAPrivateCache() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "s-maxage=60")])
            _ = try await fetch(client, path)
            #expect(try await fetch(client, path).bodyText == "hit 2")
        }
    }

    @Test func theAgeFromUpstreamCountsTowardsTheAge() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=60"), ("age", "50")])
            _ = try await fetch(client, path)
            let cached = try await fetch(client, path)
            #expect(cached.source == .cache)
            #expect(cached.headers["Age"] == "50")
            now.advance(11)
            #expect(try await fetch(client, path).bodyText == "hit 2")
        }
    }

    @Test func hopByHopFieldsAndThoseConnectionNamesAreNotStored() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60"), ("connection", "X-Hop"), ("h", "X-Hop: 1"), ("h", "X-Kept: 1")])
            _ = try await fetch(client, path)
            let cached = try await fetch(client, path)
            #expect(cached.source == .cache)
            #expect(cached.headers["X-Hop"] == nil)
            #expect(cached.headers["Connection"] == nil)
            #expect(cached.headers["X-Kept"] == "1")
        }
    }

    @Test func aRedirectedResponseIsNotStored() async throws {
        try await withCache { server, client, _ in
            let target = cacheable([("cc", "max-age=60")])
            let path = "/redirect-to?url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&status_code=302"
            _ = try await fetch(client, path)
            let second = try await fetch(client, path)
            #expect(second.source == .network)
            #expect(server.receivedRequests.filter { $0.path == "/redirect-to" }.count == 2)
        }
    }

    @Test func aHeadRequestIsAnsweredFromTheStoredGet() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            _ = try await fetch(client, path)
            let head = try await fetch(client, path, method: .head)
            #expect(head.source == .cache)
            #expect(head.body.isEmpty)
            #expect(server.requests(for: path).count == 1)
        }
    }

    @Test func aHeadResponseUpdatesTheStoredGet() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10"), ("etag", "v1"), ("not_modified_h", "X-Version: 2")])
            _ = try await fetch(client, path)
            now.advance(20)
            let head = try await fetch(client, path, method: .head)
            #expect(head.source == .revalidated)
            let get = try await fetch(client, path)
            #expect(get.source == .cache)
            #expect(get.bodyText == "hit 1")
            #expect(get.headers["X-Version"] == "2")
        }
    }
}
