import Courier
import CourierTesting
import Foundation
import Testing

/// The connections of hosts with TLS settings: timeouts, cancellation and closing.
@Suite("Verified connections: timeouts, cancellation, Connection: close")
struct VerifiedConnectionTests {
    @Test func theTotalTimeoutEndsASlowExchange() async throws {
        try await TLSWorld().run { _, client in
            var request = Request<Response>(path: "/delay/10")
            request.timeout = .milliseconds(300)
            let error = await courierError { _ = try await client.send(request) }
            #expect(error?.kind == .timeout)
        }
    }

    @Test func cancellingATaskEndsItsExchange() async throws {
        try await TLSWorld().run { server, client in
            let task = Task { try await client.send(Request<Response>(path: "/delay/10")) }
            #expect(await eventually { server.receivedRequests.count == 1 })
            task.cancel()
            let error = await courierError { _ = try await task.value }
            #expect(error?.kind == .cancelled)
            try await expectOK(client, "/get")
        }
    }

    @Test func aClosedConnectionIsNotReused() async throws {
        try await TLSWorld().run { server, client in
            try await expectOK(client, "/close")
            try await expectOK(client, "/get")
            try await expectOK(client, "/get")
            #expect(server.acceptedConnections == 2)
        }
    }
}
