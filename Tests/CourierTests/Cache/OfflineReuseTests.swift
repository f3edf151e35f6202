import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `AppCachePolicy.servesStaleWhenOffline`: with the server stopped, a stale stored response is
/// delivered, marked stale and with its age; responses that forbid it, and servers that answer,
/// are unaffected.
@Suite("Cache: stale responses when the server cannot be reached")
struct OfflineReuseTests {
    /// Stores a response for `items` while `server` runs, makes it `staleness` seconds stale,
    /// stops the server, and runs `body` with the client and the path.
    private func offline(
        _ items: [(String, String)], key: String = #function, servesStale: Bool? = true, staleness: TimeInterval = 60,
        _ body: (TestServer, CourierClient, String) async throws -> Void
    ) async throws {
        try await withServer { server in
            try await withCachingClient(server, configure: { $0.cache?.policy.servesStaleWhenOffline = servesStale }) { client, now in
                let path = cacheable([("cc", "max-age=10")] + items, key: key)
                #expect(try await fetch(client, path).source == .network)
                now.advance(10 + staleness)
                try await server.shutdown()
                try await body(server, client, path)
            }
        }
    }

    @Test func aStaleResponseIsDeliveredMarkedStaleWithItsAge() async throws {
        try await offline([("etag", "v1")]) { _, client, path in
            let response = try await fetch(client, path)
            #expect(response.status == 200)
            #expect(response.source == .stale)
            #expect(response.bodyText == "hit 1")
            #expect(Int(response.headers["Age"] ?? "") ?? 0 >= 70)
        }
    }

    @Test func withoutThePolicyTheFailureIsThrown() async throws {
        try await offline([("etag", "v1")], servesStale: nil) { _, client, path in
            let error = await #expect(throws: CourierError.self) { try await fetch(client, path) }
            #expect(error?.kind == .connectionFailed)
        }
    }

    @Test func aRequestCanTurnTheClientsPolicyOff() async throws {
        try await offline([("etag", "v1")]) { _, client, path in
            let error = await #expect(throws: CourierError.self) {
                try await fetch(client, path, appPolicy: AppCachePolicy(servesStaleWhenOffline: false))
            }
            #expect(error?.kind == .connectionFailed)
        }
    }

    @Test func aRequestCanTurnItOnForItself() async throws {
        try await offline([("etag", "v1")], servesStale: nil) { _, client, path in
            let response = try await fetch(client, path, appPolicy: AppCachePolicy(servesStaleWhenOffline: true))
            #expect(response.source == .stale)
        }
    }

    @Test func mustRevalidateGivesAGatewayTimeout() async throws {
        try await offline([("cc", "must-revalidate")]) { _, client, path in
            let response = try await fetch(client, path)
            #expect(response.status == 504)
            #expect(response.bodyText.isEmpty)
        }
    }

    @Test func noCacheGivesTheFailure() async throws {
        try await withServer { server in
            try await withCachingClient(server, configure: { $0.cache?.policy.servesStaleWhenOffline = true }) { client, _ in
                let path = cacheable([("cc", "no-cache"), ("etag", "v1")])
                _ = try await fetch(client, path)
                try await server.shutdown()
                await #expect(throws: CourierError.self) { try await fetch(client, path) }
            }
        }
    }

    @Test func aFreshResponseNeedsNoServerAtAll() async throws {
        try await offline([("etag", "v1")], staleness: -5) { _, client, path in
            let response = try await fetch(client, path)
            #expect(response.source == .cache)
        }
    }

    @Test func aServerErrorIsDeliveredAsItIs() async throws {
        try await withServer { server in
            try await withCachingClient(server, configure: { $0.cache?.policy.servesStaleWhenOffline = true }) { client, now in
                let path = cacheable([("cc", "max-age=10"), ("fail_after", "1")])
                _ = try await fetch(client, path)
                now.advance(60)
                // The server answers: it is not offline, and without stale-if-error a 503 is the answer.
                #expect(try await fetch(client, path).status == 503)
            }
        }
    }

    @Test func theServerBackOnTheSamePortRevalidatesAgain() async throws {
        try await offline([("etag", "v1")]) { server, client, path in
            #expect(try await fetch(client, path).source == .stale)
            let restarted = try await TestServer.start(port: server.port)
            do {
                let response = try await fetch(client, path)
                #expect(response.source == .revalidated)
                #expect(restarted.requests(for: path).count == 1)
            } catch {
                try await restarted.shutdown()
                throw error
            }
            try await restarted.shutdown()
        }
    }
}

@Suite("Cache: image freshness")
struct ImageFreshnessTests {
    static let week = Duration.seconds(7 * 86_400)

    @Test(arguments: [
        ("image/png", "", 604_800.0), ("IMAGE/webp; q=1", "", 604_800.0), ("text/html", "", nil), ("image/png", "max-age=5", nil),
    ])
    func imagesWithoutFreshnessGetTheImageLifetime(type: String, control: String, lifetime: Double?) {
        var headers: Headers = ["Content-Type": type]
        if !control.isEmpty { headers.set(name: "Cache-Control", value: control) }
        let tags = AppCachePolicy(imageFreshness: Self.week).tags(for: headers)
        #expect(tags["courier.default-freshness"].flatMap(Double.init) == lifetime)
    }

    @Test func theImageLifetimeWinsOverTheDefaultFreshnessForImagesOnly() {
        let policy = AppCachePolicy(defaultFreshness: .seconds(600), imageFreshness: Self.week)
        #expect(policy.tags(for: ["Content-Type": "image/jpeg"])["courier.default-freshness"] == "604800.0")
        #expect(policy.tags(for: ["Content-Type": "application/json"])["courier.default-freshness"] == "600.0")
    }

    @Test func aStoredImageStaysFreshForTheImageLifetime() async throws {
        try await withServer { server in
            try await withCachingClient(server, configure: { $0.cache?.policy.imageFreshness = Self.week }) { client, now in
                let request = CourierRequest<CourierResponse>(path: "/image/png")
                let image = CourierResponse(status: 200, headers: ["Content-Type": "image/png"], body: Data([0x89, 0x50]), url: server.url("/image/png"))
                try await client.storeCachedResponse(image, for: request)
                now.advance(6 * 86_400)
                #expect(try await client.cachedResponse(for: request)?.source == .cache)
                now.advance(2 * 86_400)
                #expect(try await client.cachedResponse(for: request)?.source == .stale)
            }
        }
    }
}
