import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Cache: request and response directives")
struct CacheDirectivesIntegrationTests {
    @Test(arguments: [("Cache-Control", "no-cache"), ("Pragma", "no-cache"), ("Cache-Control", "max-age=0")])
    func requestDirectivesThatForceRevalidation(name: String, value: String) async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60"), ("etag", "v1")], key: "\(name)-\(value)")
            _ = try await fetch(client, path)
            let second = try await fetch(client, path, headers: Headers([(name, value)]))
            #expect(second.source == .revalidated)
            #expect(server.requests(for: path).count == 2)
        }
    }

    @Test func pragmaIsIgnoredWhenCacheControlIsPresent() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            _ = try await fetch(client, path)
            let second = try await fetch(client, path, headers: ["Pragma": "no-cache", "Cache-Control": "max-stale=5"])
            #expect(second.source == .cache)
        }
    }

    @Test func requestMaxAgeRejectsOlderResponses() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=600"), ("etag", "v1")])
            _ = try await fetch(client, path)
            now.advance(20)
            #expect(try await fetch(client, path, headers: ["Cache-Control": "max-age=30"]).source == .cache)
            #expect(try await fetch(client, path, headers: ["Cache-Control": "max-age=10"]).source == .revalidated)
        }
    }

    @Test func requestNoStoreKeepsTheResponseOutOfTheCache() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            _ = try await fetch(client, path, headers: ["Cache-Control": "no-store"])
            #expect(try await fetch(client, path).bodyText == "hit 2")
        }
    }

    @Test func maxStaleWithoutAValueAcceptsAnyStaleness() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10")])
            _ = try await fetch(client, path)
            now.advance(1000)
            let stale = try await fetch(client, path, headers: ["Cache-Control": "max-stale"])
            #expect(stale.source == .stale)
            #expect(stale.headers["Age"] == "1000")
        }
    }

    @Test func maxStaleWithAValueLimitsTheStaleness() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10")])
            _ = try await fetch(client, path)
            now.advance(15)
            #expect(try await fetch(client, path, headers: ["Cache-Control": "max-stale=10"]).source == .stale)
            #expect(try await fetch(client, path, headers: ["Cache-Control": "max-stale=2"]).bodyText == "hit 2")
        }
    }

    @Test func minFreshAsksForResponsesFreshForLonger() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=60"), ("etag", "v1")])
            _ = try await fetch(client, path)
            now.advance(30)
            #expect(try await fetch(client, path, headers: ["Cache-Control": "min-fresh=20"]).source == .cache)
            #expect(try await fetch(client, path, headers: ["Cache-Control": "min-fresh=40"]).source == .revalidated)
        }
    }

    @Test func onlyIfCachedAnswers504WhenNothingFits() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10")])
            let miss = try await fetch(client, path, headers: ["Cache-Control": "only-if-cached"])
            #expect(miss.status == 504)
            _ = try await fetch(client, path)
            #expect(try await fetch(client, path, headers: ["Cache-Control": "only-if-cached"]).source == .cache)
            now.advance(20)
            #expect(try await fetch(client, path, headers: ["Cache-Control": "only-if-cached"]).status == 504)
            #expect(server.requests(for: path).count == 1)
        }
    }

    @Test func responseNoCacheIsRevalidatedEveryTime() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "no-cache, max-age=60"), ("etag", "v1")])
            _ = try await fetch(client, path)
            #expect(try await fetch(client, path).source == .revalidated)
            #expect(try await fetch(client, path, headers: ["Cache-Control": "max-stale"]).source == .revalidated)
            #expect(server.requests(for: path).count == 3)
        }
    }

    @Test func noCacheWithFieldNamesStripsThemWhenServedUnvalidated() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "no-cache=\"X-Secret\", max-age=60"), ("h", "X-Secret: s"), ("h", "X-Public: p")])
            let first = try await fetch(client, path)
            #expect(first.headers["X-Secret"] == "s")
            let cached = try await fetch(client, path)
            #expect(cached.source == .cache)
            #expect(cached.headers["X-Secret"] == nil)
            #expect(cached.headers["X-Public"] == "p")
        }
    }

    @Test func mustRevalidateNeverServesStale() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10, must-revalidate"), ("etag", "v1")])
            _ = try await fetch(client, path)
            now.advance(20)
            #expect(try await fetch(client, path, headers: ["Cache-Control": "max-stale"]).source == .revalidated)
        }
    }

    @Test func mustRevalidateAnswers504WhenTheOriginIsUnreachable() async throws {
        let server = try await TestServer.start()
        try await withCachingClient(server) { client, now in
            let path = cacheable([("cc", "max-age=10, must-revalidate"), ("etag", "v1")])
            _ = try await fetch(client, path)
            try await server.shutdown()
            #expect(try await fetch(client, path).source == .cache)
            now.advance(20)
            let answer = try await fetch(client, path)
            #expect(answer.status == 504)
        }
    }

    @Test func staleIfErrorServesStaleWhenTheOriginFails() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10, stale-if-error=60"), ("fail_after", "1")])
            _ = try await fetch(client, path)
            now.advance(30)
            let stale = try await fetch(client, path)
            #expect(stale.source == .stale)
            #expect(stale.bodyText == "hit 1")
            now.advance(60)
            #expect(try await fetch(client, path).status == 503)
        }
    }

    @Test func staleIfErrorServesStaleWhenTheOriginIsUnreachable() async throws {
        let server = try await TestServer.start()
        try await withCachingClient(server) { client, now in
            let path = cacheable([("cc", "max-age=10, stale-if-error=60")])
            _ = try await fetch(client, path)
            try await server.shutdown()
            now.advance(30)
            #expect(try await fetch(client, path).source == .stale)
        }
    }

    @Test func staleWhileRevalidateServesStaleAndRefreshesInTheBackground() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10, stale-while-revalidate=60"), ("etag", "v1")])
            _ = try await fetch(client, path)
            now.advance(30)
            let stale = try await fetch(client, path)
            #expect(stale.source == .stale)
            #expect(stale.bodyText == "hit 1")
            await client.waitForCacheRefreshes()
            #expect(server.requests(for: path).count == 2)
            #expect(server.requests(for: path).last?.header("If-None-Match") == "\"v1\"")
            #expect(try await fetch(client, path).source == .cache)
        }
    }

    @Test func shutdownWaitsForBackgroundRefreshes() async throws {
        try await withServer { server in
            let path = cacheable([("cc", "max-age=10, stale-while-revalidate=60")])
            try await withCachingClient(server) { client, now in
                _ = try await fetch(client, path)
                now.advance(30)
                #expect(try await fetch(client, path).source == .stale)
            }
            #expect(server.requests(for: path).count == 2)
        }
    }

    @Test func immutableFreshResponsesAreNotRevalidatedOnReload() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60, immutable"), ("etag", "v1")])
            _ = try await fetch(client, path)
            #expect(try await fetch(client, path, headers: ["Cache-Control": "no-cache"]).source == .cache)
            #expect(try await fetch(client, path, policy: .noCache).source == .cache)
            // A browser's reload: max-age=0.
            #expect(try await fetch(client, path, headers: ["Cache-Control": "max-age=0"]).source == .cache)
            #expect(server.requests(for: path).count == 1)
            // Only .reload goes to the network.
            #expect(try await fetch(client, path, policy: .reload).source == .network)
            #expect(server.requests(for: path).count == 2)
        }
    }

    @Test func unsafeMethodsInvalidateTheTarget() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            _ = try await fetch(client, path)
            _ = try await fetch(client, path, method: .post)
            #expect(try await fetch(client, path).source == .network)
            _ = try await fetch(client, path, method: .delete)
            #expect(try await fetch(client, path).source == .network)
        }
    }

    @Test func unsafeMethodsInvalidateSameOriginLocations() async throws {
        try await withCache { server, client, _ in
            let located = "/cache/60"
            _ = try await fetch(client, located)
            _ = try await fetch(client, cacheable([("location", "http://localhost:1" + located)]), method: .post)
            #expect(try await fetch(client, located).source == .cache)
            _ = try await fetch(client, cacheable([("content_location", located)]), method: .put)
            #expect(try await fetch(client, located).source == .network)
            _ = try await fetch(client, cacheable([("location", located)]), method: .patch)
            #expect(try await fetch(client, located).source == .network)
        }
    }

    @Test func anErrorResponseToAnUnsafeMethodInvalidatesNothing() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60"), ("fail_after", "1")])
            _ = try await fetch(client, path)
            #expect(try await fetch(client, path, method: .put).status == 503)
            #expect(try await fetch(client, path).source == .cache)
        }
    }
}
