import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Cache: application policies and the write-through API")
struct CacheAppPolicyTests {
    @Test func aFixedLifetimeKeepsResponsesWhateverTheirFields() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "no-store, no-cache")])
            let policy = AppCachePolicy(fixedLifetime: .seconds(60))
            _ = try await fetch(client, path, appPolicy: policy)
            now.advance(59)
            #expect(try await fetch(client, path, appPolicy: policy).source == .cache)
            now.advance(2)
            #expect(try await fetch(client, path, appPolicy: policy).bodyText == "hit 2")
        }
    }

    @Test func aDefaultFreshnessAppliesOnlyToResponsesWithoutOne() async throws {
        try await withCache { configuration in
            configuration.cache?.policy.defaultFreshness = .seconds(600)
        } _: { _, client, now in
            let silent = cacheable([], key: "silent")
            let explicit = cacheable([("cc", "max-age=5")], key: "explicit")
            for path in [silent, explicit] { _ = try await fetch(client, path) }
            now.advance(300)
            #expect(try await fetch(client, silent).source == .cache)
            #expect(try await fetch(client, explicit).source == .network)
        }
    }

    @Test(arguments: [
        (AppCachePolicy(version: 1), AppCachePolicy(version: 2)),
        (AppCachePolicy(sensitiveData: "user-1"), AppCachePolicy(sensitiveData: "user-2")),
        (AppCachePolicy(appVersion: "1.0"), AppCachePolicy(appVersion: "1.1")),
        (AppCachePolicy(version: 1), AppCachePolicy()),
    ])
    func entriesStoredUnderOtherRulesAreMisses(stored: AppCachePolicy, asked: AppCachePolicy) async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            _ = try await fetch(client, path, appPolicy: stored)
            #expect(try await fetch(client, path, appPolicy: stored).source == .cache)
            #expect(try await fetch(client, path, appPolicy: asked).bodyText == "hit 2")
        }
    }

    @Test func sensitiveDataIsStoredOnlyAsADigest() async throws {
        try await withServer { server in
            let storage = MemoryCacheStorage()
            try await withCachingClient(server, storage: storage) { client, _ in
                let path = cacheable([("cc", "max-age=60")])
                _ = try await fetch(client, path, appPolicy: AppCachePolicy(sensitiveData: "user-42"))
                let entry = try #require(try await storage.entries(forKey: server.url(path).absoluteString).first)
                #expect(!entry.tags.values.contains { $0.contains("user-42") })
                #expect(entry.tags.values.contains { $0.count == 64 })
            }
        }
    }

    @Test func responsesCanBeWrittenReadAndRemoved() async throws {
        try await withCache { server, client, _ in
            let request = CourierRequest<CourierResponse>(path: "/saved")
            let saved = CourierResponse(status: 200, headers: ["Cache-Control": "max-age=60"], body: Data("saved".utf8), url: server.url("/saved"))
            try await client.storeCachedResponse(saved, for: request)
            let cached = try #require(try await client.cachedResponse(for: request))
            #expect(cached.bodyText == "saved")
            #expect(try await fetch(client, "/saved", policy: .onlyIfCached).source == .cache)
            try await client.removeCachedResponse(for: request)
            #expect(try await client.cachedResponse(for: request) == nil)
            try await client.storeCachedResponse(saved, for: request)
            try await client.removeAllCachedResponses()
            #expect(try await fetch(client, "/saved", policy: .onlyIfCached).status == 504)
            #expect(server.receivedRequests.isEmpty)
        }
    }
}
