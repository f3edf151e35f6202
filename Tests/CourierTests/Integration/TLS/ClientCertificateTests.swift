import Courier
import CourierTesting
import Foundation
import Testing

/// Client certificates against a server that requires them, and the connections they get.
@Suite("Client certificates against in-process HTTPS servers")
struct ClientCertificateTests {
    /// A server requiring certificates from `clientAuthority`, and a client certificate it issued.
    struct Setup {
        let world: TLSWorld
        let clientAuthority: TestCertificate
        let client: TestCertificate

        init() throws {
            world = try TLSWorld()
            clientAuthority = try TestCertificates.authority("Client CA")
            client = try TestCertificates.leaf("ada", hosts: ["ada.test"], issuer: clientAuthority, client: true)
        }

        var serverTLS: TestServerTLS { TestServerTLS(chain: [world.server], clientAuthority: clientAuthority) }

        func policy(_ identity: ClientIdentity?) -> TLSPolicy {
            var policy = world.trustingAuthority
            policy.clientIdentity = identity
            return policy
        }

        /// Runs `body` with a server requiring certificates and a client showing `identity`.
        func run(_ identity: ClientIdentity?, _ body: (TestServer, CourierClient) async throws -> Void) async throws {
            try await withTLSServer(serverTLS) { server in
                try await withClient(server, tls: policy(identity)) { client in try await body(server, client) }
            }
        }

        var pemIdentity: ClientIdentity {
            .pem(certificate: .bytes(Data(client.certificatePEM.utf8)), privateKey: .bytes(Data(client.privateKeyPEM.utf8)))
        }
    }

    @Test func aPEMCertificateAndKeyFromFilesAreAccepted() async throws {
        let setup = try Setup()
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try setup.client.write(to: folder, name: "client")
        let identity = ClientIdentity.pem(certificate: .file(files.certificate.path), privateKey: .file(files.key.path))
        try await setup.run(identity) { _, client in try await expectOK(client, "/get") }
    }

    @Test func aPKCS12BundleWithItsPasswordIsAccepted() async throws {
        let setup = try Setup()
        let bundle = setup.client.pkcs12(password: "s3cret")
        try await setup.run(.pkcs12(.bytes(bundle), password: "s3cret")) { _, client in try await expectOK(client, "/get") }
    }

    @Test func aPKCS12BundleWithAWrongPasswordIsUnusable() async throws {
        let setup = try Setup()
        let bundle = setup.client.pkcs12(password: "s3cret")
        try await setup.run(.pkcs12(.bytes(bundle), password: "wrong")) { server, client in
            #expect(await tlsFailure { _ = try await client.send(CourierRequest<CourierResponse>(path: "/get")) } == .unusableMaterial)
            #expect(server.acceptedConnections == 0)
        }
    }

    @Test func aMissingCertificateIsRejectedByTheServer() async throws {
        let setup = try Setup()
        try await setup.run(nil) { server, client in
            #expect(await tlsFailure { _ = try await client.send(CourierRequest<CourierResponse>(path: "/get")) } == .clientCertificateRejected)
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func aCertificateFromAnotherAuthorityIsRejectedByTheServer() async throws {
        let setup = try Setup()
        let stranger = try TestCertificates.leaf("eve", hosts: ["eve.test"], issuer: try TestCertificates.authority("Eve CA"), client: true)
        let identity = ClientIdentity.pem(certificate: .bytes(Data(stranger.certificatePEM.utf8)), privateKey: .bytes(Data(stranger.privateKeyPEM.utf8)))
        try await setup.run(identity) { server, client in
            #expect(await tlsFailure { _ = try await client.send(CourierRequest<CourierResponse>(path: "/get")) } == .clientCertificateRejected)
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func aPerHostIdentityIsShownToItsHostOnly() async throws {
        let setup = try Setup()
        var policy = setup.policy(nil)
        policy.hostIdentities = ["127.0.0.1": setup.pemIdentity]
        try await withTLSServer(setup.serverTLS) { server in
            try await withClient(server, tls: policy) { client in
                try await expectOK(client, "/get")
                let elsewhere = URL(string: "https://localhost:\(server.port)/get")!
                #expect(await tlsFailure { _ = try await client.send(CourierRequest<CourierResponse>(path: elsewhere.absoluteString)) } == .clientCertificateRejected)
            }
        }
    }

    @Test func connectionsAreReusedOnlyUnderTheSameSettings() async throws {
        let setup = try Setup()
        let second = try TestCertificates.leaf("grace", hosts: ["grace.test"], issuer: setup.clientAuthority, client: true)
        var policy = setup.policy(setup.pemIdentity)
        policy.hostIdentities = [
            "localhost": .pem(certificate: .bytes(Data(second.certificatePEM.utf8)), privateKey: .bytes(Data(second.privateKeyPEM.utf8)))
        ]
        try await withTLSServer(setup.serverTLS) { server in
            try await withClient(server, tls: policy) { client in
                let byName = "https://localhost:\(server.port)/get"
                for _ in 0..<3 {
                    try await expectOK(client, "/get")
                    try await expectOK(client, byName)
                }
                // One connection per identity, each reused for its three requests.
                #expect(server.acceptedConnections == 2)
                #expect(server.receivedRequests.count == 6)
            }
        }
    }
}
