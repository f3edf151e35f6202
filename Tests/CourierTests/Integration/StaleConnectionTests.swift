import Courier
import CourierTesting
import Foundation
import Testing

@Suite("A kept-alive connection the server closed as it was reused")
struct StaleConnectionTests {
    @Test("an idempotent request is sent once more on a new connection, outside the retry policy", arguments: [CourierHTTPMethod.get, .head, .put, .delete])
    func idempotentRequestIsReplayed(method: CourierHTTPMethod) async throws {
        try await withStaleServer { url, client in
            for _ in 0..<3 {
                var request = CourierRequest<CourierResponse>(method: method, path: url)
                request.validators = []
                let response = try await client.send(request)
                #expect(response.status == 200)
            }
        }
    }

    @Test("a POST is replayed only with an Idempotency-Key")
    func postNeedsAKey() async throws {
        try await withStaleServer { url, client in
            _ = try await client.send(CourierRequest<CourierResponse>(method: .post, path: url, body: .text("first")))
            let error = await courierError { _ = try await client.send(CourierRequest<CourierResponse>(method: .post, path: url, body: .text("second"))) }
            #expect(error?.kind == .connectionFailed)

            _ = try await client.send(CourierRequest<CourierResponse>(method: .post, path: url, body: .text("third")))
            var keyed = CourierRequest<CourierResponse>(method: .post, path: url, body: .text("fourth"))
            keyed.headers.add(name: "Idempotency-Key", value: "k-4")
            #expect(try await client.send(keyed).status == 200)
        }
    }

    /// Runs `body` with the URL of a server that closes each kept-alive connection as it is
    /// reused, and a client with one connection per host and no retry policy, so that only
    /// the stale-connection replay can save a request.
    private func withStaleServer(_ body: (String, CourierClient) async throws -> Void) async throws {
        let server = try await FaultServer.start(.closeReusedConnection)
        defer { Task { try? await server.shutdown() } }
        try await withClient(
            nil,
            configure: {
                $0.retryPolicy = .none; $0.limits.maximumConnectionsPerHost = 1
            }
        ) { client in
            try await body("http://127.0.0.1:\(server.port)/", client)
        }
    }
}
