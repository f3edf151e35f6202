import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// The HTTP cache on the streamed path (`stream` and `perform`): it answers what it may, hands
/// a stored response over whole, and stores a response from the network once its reader has
/// read it to its end.
@Suite("Cache: streamed requests")
struct StreamedCacheTests {
    /// What a streamed GET of `path` read: the source, the status, the pieces as text.
    private struct Reading: Sendable {
        var source: CourierResponse.Source
        var status: Int
        var pieces: [String]
        var text: String { pieces.joined() }
    }

    private func stream(_ client: CourierClient, _ path: String, method: CourierHTTPMethod = .get, reads: Bool = true) async throws -> Reading {
        var request = CourierRequest<Void>(method: method, path: path)
        request.validators = []
        return try await client.stream(request) { response in
            var pieces: [String] = []
            if reads {
                for try await piece in response.body { pieces.append(String(decoding: piece, as: UTF8.self)) }
            }
            return Reading(source: response.head.source, status: response.head.status, pieces: pieces)
        }
    }

    @Test func aResponseReadToItsEndIsStoredAndThenServedWhole() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            let first = try await stream(client, path)
            #expect(first.source == .network)
            #expect(first.text == "hit 1")
            let second = try await stream(client, path)
            #expect(second.source == .cache)
            #expect(second.pieces == ["hit 1"])
            #expect(server.requests(for: path).count == 1)
        }
    }

    @Test func aResponseReadInPartIsNotStored() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            _ = try await stream(client, path, reads: false)
            let second = try await stream(client, path)
            #expect(second.source == .network)
            #expect(second.text == "hit 2")
        }
    }

    @Test func aBodyPastTheRequestsLimitIsReadButNotStored() async throws {
        try await withCache(configure: { $0.limits.maximumBodySize = 3 }) { _, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            let first = try await stream(client, path)
            let second = try await stream(client, path)
            #expect(first.text == "hit 1")
            #expect(second.text == "hit 2")
        }
    }

    @Test func aStaleResponseIsRevalidatedAndTheStoredBodyHandedOver() async throws {
        try await withCache { server, client, now in
            let path = cacheable([("cc", "max-age=10"), ("etag", "v1")])
            _ = try await stream(client, path)
            now.advance(20)
            let second = try await stream(client, path)
            #expect(second.source == .revalidated)
            #expect(second.status == 200)
            #expect(second.pieces == ["hit 1"])
            #expect(server.requests(for: path).last?.header("If-None-Match") == "\"v1\"")
        }
    }

    @Test func aServerErrorWhileRevalidatingIsAnsweredWithTheStaleResponseTheServerAllows() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=0, stale-if-error=600"), ("etag", "v1"), ("fail_after", "1")])
            _ = try await stream(client, path)
            let second = try await stream(client, path)
            #expect(second.status == 200)
            #expect(second.source == .stale)
            #expect(second.pieces == ["hit 1"])
            #expect(server.requests(for: path).count == 2)
        }
    }

    @Test func aStreamedUnsafeRequestInvalidatesTheStoredResponse() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            _ = try await stream(client, path)
            let post = try await stream(client, path, method: .post)
            #expect(post.text == "hit 2")
            let after = try await stream(client, path)
            #expect(after.source == .network)
            #expect(after.text == "hit 3")
        }
    }

    @Test func performTakesTheCachePolicyOfItsOptions() async throws {
        try await withCache { server, client, _ in
            let path = cacheable([("cc", "max-age=60")])
            let url = server.url(path)
            let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: url.path + "?" + (url.query ?? ""))
            var options = CourierRequestOptions()
            options.cachePolicy = .onlyIfCached
            let missing = try await client.perform(request: request, options: options) { response, _ in response.status.code }
            #expect(missing == 504)
            #expect(server.requests(for: path).isEmpty)
            options.cachePolicy = .default
            let stored = try await client.perform(request: request, options: options) { _, body in
                try await body.collect(upTo: 1024) { String(decoding: $0, as: UTF8.self) }.0
            }
            #expect(stored == "hit 1")
            options.cachePolicy = .onlyIfCached
            let hit = try await client.perform(request: request, options: options) { _, body in
                try await body.collect(upTo: 1024) { String(decoding: $0, as: UTF8.self) }.0
            }
            #expect(hit == "hit 1")
            options.cachePolicy = .reload
            let reloaded = try await client.perform(request: request, options: options) { _, body in
                try await body.collect(upTo: 1024) { String(decoding: $0, as: UTF8.self) }.0
            }
            #expect(reloaded == "hit 2")
        }
    }

    @Test func onlyIfCachedWithoutACacheIsAGatewayTimeout() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var request = CourierRequest<Void>(path: "/get")
                request.validators = []
                request.cachePolicy = .onlyIfCached
                let status = try await client.stream(request) { $0.head.status }
                #expect(status == 504)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }
}
