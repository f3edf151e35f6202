import Courier
import CourierTesting
import Foundation
import Testing

/// RFC 9111's rules for a shared cache (``CacheConfiguration/isShared``), against a real server,
/// beside the same requests through a private cache where the rules differ.
@Suite("Cache: shared-cache rules")
struct SharedCacheRulesTests {
    /// Runs `body` with a server and two caching clients on it: one shared, one private.
    private func withBoth(_ body: (TestServer, _ shared: CourierClient, _ private: CourierClient, ManualNow) async throws -> Void) async throws {
        let now = ManualNow()
        try await withServer { server in
            try await withCachingClient(server, now: now, configure: { $0.cache?.isShared = true }) { shared, _ in
                try await withCachingClient(server, now: now) { privateClient, _ in
                    try await body(server, shared, privateClient, now)
                }
            }
        }
    }

    @Test func aPrivateResponseIsKeptByAPrivateCacheOnly() async throws {
        try await withBoth { server, shared, privateClient, _ in
            let path = cacheable([("cc", "private, max-age=60")])
            _ = try await fetch(shared, path)
            #expect(try await fetch(shared, path).source == .network)
            _ = try await fetch(privateClient, path)
            #expect(try await fetch(privateClient, path).source == .cache)
            #expect(server.requests(for: path).count == 3)
        }
    }

    @Test func aResponseToCredentialsIsSharedOnlyWhenItSaysSo() async throws {
        try await withBoth { server, shared, _, _ in
            let alice: Headers = ["Authorization": "Bearer alice"]
            let bob: Headers = ["Authorization": "Bearer bob"]
            let plain = cacheable([("cc", "max-age=60")])
            _ = try await fetch(shared, plain, headers: alice)
            #expect(try await fetch(shared, plain, headers: alice).source == .network)
            for directive in ["public, max-age=60", "s-maxage=60", "max-age=60, must-revalidate"] {
                let path = cacheable([("cc", directive)], key: "shared-\(directive)")
                _ = try await fetch(shared, path, headers: alice)
                let other = try await fetch(shared, path, headers: bob)
                #expect(other.source == .cache, "\(directive)")
                #expect(server.requests(for: path).count == 1, "\(directive)")
            }
        }
    }

    @Test func aPrivateCacheKeepsEachCredentialApart() async throws {
        try await withBoth { server, _, privateClient, _ in
            let path = cacheable([("cc", "public, max-age=60")])
            _ = try await fetch(privateClient, path, headers: ["Authorization": "Bearer alice"])
            #expect(try await fetch(privateClient, path, headers: ["Authorization": "Bearer bob"]).source == .network)
            #expect(try await fetch(privateClient, path, headers: ["Authorization": "Bearer alice"]).source == .cache)
            #expect(server.requests(for: path).count == 2)
        }
    }

    @Test func sMaxageGovernsASharedCacheAndNotAPrivateOne() async throws {
        try await withBoth { server, shared, privateClient, now in
            let path = cacheable([("cc", "max-age=10, s-maxage=100"), ("etag", "v1")])
            _ = try await fetch(shared, path)
            _ = try await fetch(privateClient, path)
            now.advance(50)
            #expect(try await fetch(shared, path).source == .cache)
            #expect(try await fetch(privateClient, path).source == .revalidated)
            now.advance(100)
            #expect(try await fetch(shared, path).source == .revalidated)
        }
    }

    @Test(arguments: ["max-age=10, proxy-revalidate", "max-age=10, s-maxage=10"])
    func aSharedCacheServesNothingStaleThatTheOriginMustRevalidate(directive: String) async throws {
        try await withBoth { server, shared, privateClient, now in
            let path = cacheable([("cc", directive), ("etag", "v1")], key: "stale-\(directive)")
            _ = try await fetch(shared, path)
            _ = try await fetch(privateClient, path)
            now.advance(60)
            let askingForStale: Headers = ["Cache-Control": "max-stale=600"]
            #expect(try await fetch(shared, path, headers: askingForStale).source == .revalidated)
            #expect(try await fetch(privateClient, path, headers: askingForStale).source == .stale)
        }
    }
}
