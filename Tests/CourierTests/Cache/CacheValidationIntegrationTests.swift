import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Cache: validation and Vary")
struct CacheValidationIntegrationTests {
    @Test func aStaleResponseIsRevalidatedWithItsETag() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10"), ("etag", "v1")])
            _ = try await fetch(client, path)
            now.advance(20)
            let second = try await fetch(client, path)
            #expect(second.source == .revalidated)
            #expect(second.status == 200)
            #expect(second.bodyText == "hit 1")
            #expect(second.headers["Age"] == "0")
            #expect(server.requests(for: path).last?.header("If-None-Match") == "\"v1\"")
        }
    }

    @Test func aStaleResponseIsRevalidatedWithItsLastModified() async throws {
        try await withCache { server, client, now in
            let modified = now.http(-5000)
            let path = cacheable([("cc", "max-age=0"), ("last_modified", modified)])
            _ = try await fetch(client, path)
            let second = try await fetch(client, path)
            #expect(second.source == .revalidated)
            #expect(second.bodyText == "hit 1")
            #expect(server.requests(for: path).last?.header("If-Modified-Since") == modified)
        }
    }

    @Test func weakETagsRevalidate() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=0"), ("etag", "W/\"v1\"")])
            _ = try await fetch(client, path)
            let second = try await fetch(client, path)
            #expect(second.source == .revalidated)
            #expect(server.requests(for: path).last?.header("If-None-Match") == "W/\"v1\"")
        }
    }

    @Test func aNotModifiedUpdatesTheStoredFields() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10"), ("etag", "v1"), ("h", "X-Version: 1"), ("not_modified_h", "X-Version: 2")])
            let first = try await fetch(client, path)
            #expect(first.headers["X-Version"] == "1")
            now.advance(20)
            let revalidated = try await fetch(client, path)
            #expect(revalidated.headers["X-Version"] == "2")
            #expect(revalidated.headers["Content-Type"] == "text/plain")
            let cached = try await fetch(client, path)
            #expect(cached.source == .cache)
            #expect(cached.headers["X-Version"] == "2")
            #expect(server.requests(for: path).count == 2)
        }
    }

    @Test func aRequestWithItsOwnValidatorsIsAnsweredByTheCache() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60"), ("etag", "v1")])
            _ = try await fetch(client, path)
            let conditional = try await fetch(client, path, headers: ["If-None-Match": "\"v1\""])
            #expect(conditional.status == 304)
            #expect(conditional.source == .cache)
            #expect(server.requests(for: path).count == 1)
        }
    }

    @Test func aChangedResourceReplacesTheStoredOne() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=0"), ("etag", "v2")])
            let request = CourierRequest<CourierResponse>(path: path)
            let old = CourierResponse(status: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=0"], body: Data("old".utf8), url: server.url(path))
            try await client.storeCachedResponse(old, for: request)
            let fresh = try await fetch(client, path)
            #expect(fresh.source == .network)
            #expect(fresh.bodyText == "hit 1")
            #expect(server.requests(for: path).last?.header("If-None-Match") == "\"v1\"")
            let revalidated = try await fetch(client, path)
            #expect(revalidated.source == .revalidated)
            #expect(revalidated.bodyText == "hit 1")
        }
    }

    @Test func varySelectsTheVariantByTheListedRequestFields() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60"), ("vary", "Accept-Language")])
            let english: Headers = ["Accept-Language": "en"]
            let french: Headers = ["Accept-Language": "fr"]
            #expect(try await fetch(client, path, headers: english).bodyText == "hit 1")
            #expect(try await fetch(client, path, headers: french).bodyText == "hit 2")
            let cachedEnglish = try await fetch(client, path, headers: ["Accept-Language": " en "])
            #expect(cachedEnglish.source == .cache)
            #expect(cachedEnglish.bodyText == "hit 1")
            #expect(try await fetch(client, path, headers: french).bodyText == "hit 2")
            #expect(server.requests(for: path).count == 2)
        }
    }

    @Test func varyStarNeverMatches() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60"), ("vary", "*")])
            _ = try await fetch(client, path)
            #expect(try await fetch(client, path).bodyText == "hit 2")
        }
    }

    @Test func twoCredentialIdentitiesNeverShareAnEntry() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "private, max-age=60")])
            let ada: Headers = ["Authorization": "Bearer ada"]
            let bob: Headers = ["Authorization": "Bearer bob"]
            var bodies: [String] = []
            for headers in [ada, bob, Headers(), ada, bob] {
                bodies.append(try await fetch(client, path, headers: headers).bodyText)
            }
            #expect(bodies == ["hit 1", "hit 2", "hit 3", "hit 1", "hit 2"])
        }
    }

    @Test func configuredCredentialsPartitionASharedStore() async throws {
        try await withServer { server in
            let storage = MemoryCacheStorage()
            let path = cacheable([("cc", "private, max-age=60")])
            for (user, expected) in [("ada", "hit 1"), ("bob", "hit 2"), ("ada", "hit 1")] {
                try await withCachingClient(server, storage: storage) { configuration in
                    configuration.authentication = Authentication(.password(user: user, password: "secret", preemptive: true))
                } _: { client, _ in
                    let response = try await fetch(client, path)
                    #expect(response.bodyText == expected)
                }
            }
            #expect(try await storage.statistics().entryCount == 2)
        }
    }
}
