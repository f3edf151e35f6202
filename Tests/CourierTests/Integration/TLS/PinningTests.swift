import Courier
import CourierTesting
import Foundation
import Testing

/// Pins checked inside the handshake, against the chain that verified.
@Suite("Certificate and public-key pinning against in-process HTTPS servers")
struct PinningTests {
    private func policy(_ world: TLSWorld, host: String = "127.0.0.1", pins: [String], expires: Date? = nil) throws -> TLSPolicy {
        var policy = world.trustingAuthority
        policy.pins = [HostPins(host: host, pins: try pins.map { try Pin($0) }, expires: expires)]
        return policy
    }

    @Test func theServersKeyPinIsAccepted() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: try policy(world, pins: [world.server.publicKeyPin])) { client in
                try await expectOK(client, "/get")
            }
        }
    }

    @Test func theAuthoritysKeyPinIsAccepted() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: try policy(world, pins: [world.authority.publicKeyPin])) { client in
                try await expectOK(client, "/get")
            }
        }
    }

    @Test func aCertificatePinIsAccepted() async throws {
        let world = try TLSWorld()
        var tls = world.trustingAuthority
        tls.pins = [HostPins(host: "127.0.0.1", pins: [try Pin.certificate(.bytes(world.server.certificateDER))])]
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: tls) { client in
                try await expectOK(client, "/get")
            }
        }
    }

    @Test func aMismatchFailsBeforeAnyRequestIsSent() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: try policy(world, pins: [unrelatedPin])) { client in
                let error = await courierError {
                    _ = try await client.send(CourierRequest<CourierResponse>(method: .post, path: "/post", body: .text("secret")))
                }
                #expect(error?.tlsFailure == .pinMismatch)
                #expect(error?.requestMayHaveBeenSent == false)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }

    @Test func aBackupPinIsAccepted() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: try policy(world, pins: [unrelatedPin, world.server.publicKeyPin])) { client in
                try await expectOK(client, "/get")
            }
        }
    }

    @Test func expiredPinsAreNotEnforced() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: try policy(world, pins: [unrelatedPin], expires: Date() - 60)) { client in
                try await expectOK(client, "/get")
            }
        }
    }

    @Test func aPinnedCertificateAppendedToAnotherChainDoesNotCount() async throws {
        let world = try TLSWorld()
        let pinnedAuthority = try TestCertificates.authority("Pinned CA")
        let pinnedLeaf = try TestCertificates.leaf(issuer: pinnedAuthority)
        var tls = TLSPolicy(trustRoots: .only([.bytes(world.authority.certificateDER), .bytes(pinnedAuthority.certificateDER)]))
        tls.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(pinnedAuthority.publicKeyPin), try Pin(pinnedLeaf.publicKeyPin)])]
        // The server's own chain leads to `world.authority`; the pinned certificates ride along.
        try await withTLSServer(TestServerTLS(chain: [world.server, pinnedLeaf, pinnedAuthority])) { server in
            try await withClient(server, tls: tls) { client in
                #expect(await tlsFailure { _ = try await client.send(CourierRequest<CourierResponse>(path: "/get")) } == .pinMismatch)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }

    @Test func hostPatternsAreComparedWithoutCaseOrTrailingDot() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            let url = URL(string: "https://localhost:\(server.port)/get")!
            try await withClient(server, tls: try policy(world, host: "LOCALHOST.", pins: [unrelatedPin])) { client in
                #expect(await tlsFailure { _ = try await client.send(CourierRequest<CourierResponse>(path: url.absoluteString)) } == .pinMismatch)
            }
            try await withClient(server, tls: try policy(world, host: "*.localhost", pins: [unrelatedPin])) { client in
                try await expectOK(client, url.absoluteString)
            }
        }
    }

    @Test func redirectsAndBodiesWorkOnPinnedHosts() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: try policy(world, pins: [world.server.publicKeyPin])) { client in
                let redirected = try await client.response(for: CourierRequest<CourierResponse>(path: "/redirect/2"))
                #expect(redirected.status == 200)
                #expect(redirected.redirects.count == 2)
                let echo = try await client.send(CourierRequest<Echo>(method: .post, path: "/post", body: .text("hello")))
                #expect(echo.data == "hello")
                let bytes = try await client.response(for: CourierRequest<CourierResponse>(path: "/stream-bytes/200000?chunk_size=4096"))
                #expect(bytes.body.count == 200_000)
            }
        }
    }

    @Test func downloadsAndStreamedUploadsWorkOnPinnedHosts() async throws {
        let world = try TLSWorld()
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: try policy(world, pins: [world.server.publicKeyPin])) { client in
                let file = folder.appendingPathComponent("bytes.bin")
                let result = try await client.download(CourierRequest<CourierResponse>(path: "/range/300000"), to: .file(file))
                #expect(result.bytes == 300_000)
                let upload = CourierRequestBody.stream(length: 100_000) {
                    AsyncThrowingStream { continuation in
                        for _ in 0..<10 { continuation.yield(Data(repeating: 65, count: 10_000)) }
                        continuation.finish()
                    }
                }
                let sink = try await client.response(for: CourierRequest<CourierResponse>(method: .post, path: "/sink", body: upload))
                #expect(sink.status == 200)
                #expect(String(decoding: sink.body, as: UTF8.self).contains("100000"))
                // The download and the upload shared one connection.
                #expect(server.acceptedConnections == 1)
            }
        }
    }
}
