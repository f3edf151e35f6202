import Courier
import CourierTesting
import Foundation
import Testing

/// Trust: custom roots accepted, and each kind of untrusted certificate refused with its reason.
@Suite("TLS trust against in-process HTTPS servers")
struct TLSTrustTests {
    @Test func aCustomAuthorityIsTrusted() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: world.trustingAuthority) { client in
                let response = try await client.response(for: CourierRequest<CourierResponse>(path: "/get"))
                #expect(response.status == 200)
            }
        }
    }

    @Test func aPEMAuthorityFileIsAddedToTheSystemRoots() async throws {
        let world = try TLSWorld()
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try world.authority.write(to: folder, name: "ca").certificate
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: TLSPolicy(trustRoots: .system(adding: [.file(file.path)]))) { client in
                try await expectOK(client, "/get")
            }
        }
    }

    @Test func aCertificateForAnotherHostIsRefused() async throws {
        let world = try TLSWorld()
        let other = try TestCertificates.leaf("other.test", hosts: ["other.test"], issuer: world.authority)
        try await withTLSServer(TestServerTLS(chain: [other])) { server in
            try await withClient(server, tls: world.trustingAuthority) { client in
                let reason = await tlsFailure { _ = try await client.send(CourierRequest<CourierResponse>(path: "/get")) }
                #expect(reason == .wrongHost)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }

    @Test func anExpiredCertificateIsRefused() async throws {
        let world = try TLSWorld()
        let expired = try TestCertificates.leaf(
            issuer: world.authority, notBefore: Date() - 86_400 * 2, notAfter: Date() - 86_400
        )
        try await withTLSServer(TestServerTLS(chain: [expired])) { server in
            try await withClient(server, tls: world.trustingAuthority) { client in
                let error = await courierError { _ = try await client.send(CourierRequest<CourierResponse>(path: "/get")) }
                #expect(error?.tlsFailure == .expired)
                #expect(error?.requestMayHaveBeenSent == false)
            }
        }
    }

    @Test func aCertificateNotValidYetIsRefused() async throws {
        let world = try TLSWorld()
        let early = try TestCertificates.leaf(
            issuer: world.authority, notBefore: Date() + 86_400, notAfter: Date() + 86_400 * 2
        )
        try await withTLSServer(TestServerTLS(chain: [early])) { server in
            try await withClient(server, tls: world.trustingAuthority) { client in
                #expect(await tlsFailure { _ = try await client.send(CourierRequest<CourierResponse>(path: "/get")) } == .notYetValid)
            }
        }
    }

    @Test func aSelfSignedCertificateIsRefused() async throws {
        let world = try TLSWorld()
        let selfSigned = try TestCertificates.leaf(issuer: nil)
        try await withTLSServer(TestServerTLS(chain: [selfSigned])) { server in
            try await withClient(server, tls: world.trustingAuthority) { client in
                #expect(await tlsFailure { _ = try await client.send(CourierRequest<CourierResponse>(path: "/get")) } == .selfSigned)
            }
        }
    }

    @Test func aSelfSignedCertificateIsTrustedWhenItIsTheRoot() async throws {
        let selfSigned = try TestCertificates.leaf(issuer: nil)
        try await withTLSServer(TestServerTLS(chain: [selfSigned])) { server in
            try await withClient(server, tls: TLSPolicy(trustRoots: .only([.bytes(Data(selfSigned.certificatePEM.utf8))]))) { client in
                try await expectOK(client, "/get")
            }
        }
    }

    @Test func aCertificateFromAnUnknownAuthorityIsRefused() async throws {
        let world = try TLSWorld()
        let stranger = try TestCertificates.authority("Stranger CA")
        let leaf = try TestCertificates.leaf(issuer: stranger)
        try await withTLSServer(TestServerTLS(chain: [leaf, stranger])) { server in
            try await withClient(server, tls: world.trustingAuthority) { client in
                #expect(await tlsFailure { _ = try await client.send(CourierRequest<CourierResponse>(path: "/get")) } == .unknownAuthority)
            }
        }
    }

    @Test func theDefaultSettingsRefuseATestAuthorityAndSayWhy() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: TLSPolicy()) { client in
                #expect(await tlsFailure { _ = try await client.send(CourierRequest<CourierResponse>(path: "/get")) } == .unknownAuthority)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }

    @Test func theDefaultSettingsRefuseASelfSignedCertificateAndSayWhy() async throws {
        let selfSigned = try TestCertificates.leaf(issuer: nil)
        try await withTLSServer(TestServerTLS(chain: [selfSigned])) { server in
            try await withClient(server, tls: TLSPolicy()) { client in
                #expect(await tlsFailure { _ = try await client.send(CourierRequest<CourierResponse>(path: "/get")) } == .selfSigned)
            }
        }
    }
}
