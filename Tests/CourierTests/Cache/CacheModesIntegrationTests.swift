import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Cache: modes per request")
struct CacheModesIntegrationTests {
    @Test func reloadSkipsTheLookupAndStoresTheResult() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            _ = try await fetch(client, path)
            let reloaded = try await fetch(client, path, policy: .reload)
            #expect(reloaded.source == .network)
            #expect(reloaded.bodyText == "hit 2")
            #expect(try await fetch(client, path).bodyText == "hit 2")
        }
    }

    @Test func noStoreNeitherReadsNorWrites() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            _ = try await fetch(client, path, policy: .noStore)
            #expect(try await fetch(client, path).bodyText == "hit 2")
            #expect(try await fetch(client, path, policy: .noStore).bodyText == "hit 3")
        }
    }

    @Test func noCacheAlwaysRevalidates() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60"), ("etag", "v1")])
            _ = try await fetch(client, path)
            #expect(try await fetch(client, path, policy: .noCache).source == .revalidated)
        }
    }

    @Test func returnCacheElseLoadUsesAStoredResponseOfAnyAge() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10, must-revalidate")])
            let miss = try await fetch(client, path, policy: .returnCacheElseLoad)
            #expect(miss.source == .network)
            now.advance(1000)
            let stale = try await fetch(client, path, policy: .returnCacheElseLoad)
            #expect(stale.source == .stale)
            #expect(stale.bodyText == "hit 1")
        }
    }

    @Test func onlyIfCachedNeverTouchesTheNetwork() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10")])
            #expect(try await fetch(client, path, policy: .onlyIfCached).status == 504)
            _ = try await fetch(client, path)
            #expect(try await fetch(client, path, policy: .onlyIfCached).source == .cache)
            now.advance(100)
            #expect(try await fetch(client, path, policy: .onlyIfCached).source == .stale)
            #expect(server.requests(for: path).count == 1)
        }
    }

    @Test func cachedThenFreshDeliversTheStoredResponseThenTheNetworks() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10"), ("etag", "v1")])
            var sources: [CourierResponse.Source] = []
            for try await response in client.cachedThenFresh(CourierRequest<CourierResponse>(path: path)) { sources.append(response.source) }
            #expect(sources == [.network])
            sources = []
            for try await response in client.cachedThenFresh(CourierRequest<CourierResponse>(path: path)) { sources.append(response.source) }
            #expect(sources == [.cache, .revalidated])
            now.advance(100)
            sources = []
            for try await response in client.cachedThenFresh(CourierRequest<CourierResponse>(path: path)) { sources.append(response.source) }
            #expect(sources == [.stale, .revalidated])
        }
    }

    @Test func theLastOfCachedThenFreshIsTheNetworks() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            _ = try await fetch(client, path)
            let last = try await client.cachedThenFresh(CourierRequest<CourierResponse>(path: path)).last()
            #expect(last.source == .network)
            #expect(last.bodyText == "hit 2")
            #expect(try await fetch(client, path, policy: .cachedThenFresh).bodyText == "hit 3")
        }
    }

    @Test func withoutACacheOnlyIfCachedAnswers504AndTheCacheAPIThrows() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                #expect(try await fetch(client, "/get", policy: .onlyIfCached).status == 504)
                let error = await courierError { try await client.removeAllCachedResponses() }
                #expect(error?.kind == .cacheUnavailable)
                let sources = try await client.cachedThenFresh(CourierRequest<CourierResponse>(path: "/get")).reduce(into: [CourierResponse.Source]()) { $0.append($1.source) }
                #expect(sources == [.network])
            }
        }
    }
}
