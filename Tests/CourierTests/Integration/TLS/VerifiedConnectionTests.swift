import Courier
import CourierTesting
import Foundation
import Testing

/// The connections of hosts with TLS settings: timeouts, cancellation and closing.
@Suite("Verified connections: timeouts, cancellation, Connection: close")
struct VerifiedConnectionTests {
    @Test func theTotalTimeoutEndsASlowExchange() async throws {
        try await TLSWorld().run { _, client in
            var request = CourierRequest<CourierResponse>(path: "/gate/held")
            request.timeout = .milliseconds(300)
            let error = await courierError { _ = try await client.send(request) }
            #expect(error?.kind == .timeout)
        }
    }

    /// The read timeout counts silence from when a request went out, not from the last read of
    /// a reused connection: a connection idle in the pool for most of the timeout still gives
    /// its next request the whole of it.
    @Test func aReusedConnectionGivesTheNextRequestTheWholeReadTimeout() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(
                server,
                configure: {
                    $0.tls = world.trustingAuthority
                    $0.timeouts.read = .seconds(8)
                }
            ) { client in
                try await expectOK(client, "/get")
                try await Task.sleep(for: .seconds(6))
                let slow = try await client.response(for: CourierRequest<CourierResponse>(path: "/delay/3"))
                #expect(slow.status == 200)
                #expect(server.acceptedConnections == 1, "the second request reused the first connection")
            }
        }
    }

    @Test func cancellingATaskEndsItsExchange() async throws {
        try await TLSWorld().run { server, client in
            let task = Task { try await client.send(CourierRequest<CourierResponse>(path: "/gate/held")) }
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
