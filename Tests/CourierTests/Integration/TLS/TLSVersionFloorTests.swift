import Courier
import CourierTesting
import Foundation
import Testing

@Suite("TLS version floor")
struct TLSVersionFloorTests {
    /// A server that speaks TLS 1.1 at most, like a legacy appliance.
    private func legacyServer(_ world: TLSWorld, maximum: Int) -> TestServerTLS {
        var tls = world.serverTLS
        tls.maximumVersion = maximum
        return tls
    }

    @Test("TLS 1.0 and 1.1 are refused by default on Courier's verified connections, and nothing is sent", arguments: [10, 11])
    func legacyVersionsAreRefusedByDefault(maximum: Int) async throws {
        let world = try TLSWorld()
        try await withTLSServer(legacyServer(world, maximum: maximum)) { server in
            try await withClient(server, tls: world.trustingAuthority) { client in
                let reason = await tlsFailure { _ = try await client.send(CourierRequest<Data>(path: "/get")) }
                #expect(reason == .unsupportedVersion)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }

    @Test("TLS 1.1 is refused by default on the AsyncHTTPClient transport too")
    func legacyVersionIsRefusedOnTheDefaultTransport() async throws {
        let world = try TLSWorld()
        try await withTLSServer(legacyServer(world, maximum: 11)) { server in
            // The system's roots: the request goes through AsyncHTTPClient, not the verified connections.
            try await withClient(server, tls: TLSPolicy()) { client in
                let reason = await tlsFailure { _ = try await client.send(CourierRequest<Data>(path: "/get")) }
                #expect(reason == .unsupportedVersion)
            }
            // Lowered on purpose, the handshake goes on, and fails only at the certificate the
            // system does not trust: the floor was the reason before.
            var lowered = TLSPolicy()
            lowered.minimumVersion = .insecureTLS11
            try await withClient(server, tls: lowered) { client in
                let reason = await tlsFailure { _ = try await client.send(CourierRequest<Data>(path: "/get")) }
                #expect(reason != .unsupportedVersion)
            }
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test("a floor lowered by name reaches a legacy server")
    func loweredFloorReachesALegacyServer() async throws {
        let world = try TLSWorld()
        try await withTLSServer(legacyServer(world, maximum: 11)) { server in
            var policy = world.trustingAuthority
            policy.minimumVersion = .insecureTLS11
            #expect(policy.minimumVersion.isInsecure)
            try await withClient(server, tls: policy) { client in
                let response = try await client.send(CourierRequest<CourierResponse>(path: "/get"))
                #expect(response.status == 200)
            }
        }
    }

    @Test("a TLS 1.3 floor refuses a TLS 1.2 server")
    func raisedFloorRefusesTLS12() async throws {
        let world = try TLSWorld()
        try await withTLSServer(legacyServer(world, maximum: 12)) { server in
            var policy = world.trustingAuthority
            policy.minimumVersion = .tls13
            try await withClient(server, tls: policy) { client in
                let reason = await tlsFailure { _ = try await client.send(CourierRequest<Data>(path: "/get")) }
                #expect(reason == .unsupportedVersion || reason == .handshakeFailed)
                #expect(server.receivedRequests.isEmpty)
            }
            try await withClient(server, tls: world.trustingAuthority) { client in
                let response = try await client.send(CourierRequest<CourierResponse>(path: "/get"))
                #expect(response.status == 200)
            }
        }
    }

    @Test("the versions order and name themselves")
    func versionValues() {
        #expect(MinimumTLSVersion.insecureTLS10 < .insecureTLS11)
        #expect(MinimumTLSVersion.tls12 < .tls13)
        #expect(!MinimumTLSVersion.tls12.isInsecure)
        #expect(MinimumTLSVersion.tls13.description == "TLS 1.3")
        #expect(TLSPolicy().minimumVersion == .tls12)
        #expect(ClientConfiguration().transportConfiguration.minimumTLSVersion == .tls12)
    }
}
