import Courier
import CourierTesting
import Foundation
import Testing

/// The samples of the Security article, compiled and run against an HTTPS test server (its
/// authority and certificates stand in for the article's files).
@Suite("Security article samples")
struct SecuritySamplesTests {
    @Test func trustingAPrivateAuthority() async throws {
        let world = try TLSWorld()
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let caPath = try world.authority.write(to: folder, name: "ca").certificate.path
        try await withTLSServer(world.serverTLS) { server in
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configuration.timeouts.connect = .seconds(120)  // the whole suite loads the machine
            configuration.tls.trustRoots = .system(adding: [.file(caPath)])
            try await CourierClient.withClient(configuration: configuration) { client in
                try await expectOK(client, "/get")
            }
            configuration.tls.trustRoots = .only([.file(caPath)])
            try await CourierClient.withClient(configuration: configuration) { client in
                try await expectOK(client, "/get")
            }
        }
    }

    @Test func pinningWithABackupAndAnExpiry() async throws {
        let world = try TLSWorld()
        let backup = try TestCertificates.authority("Backup")
        try await withTLSServer(world.serverTLS) { server in
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configuration.timeouts.connect = .seconds(120)  // the whole suite loads the machine
            configuration.tls.trustRoots = .only([.bytes(world.authority.certificateDER)])
            configuration.tls.pins = [
                HostPins(
                    host: "127.0.0.1",
                    pins: [
                        try Pin(world.server.publicKeyPin),  // the key in use
                        try Pin(backup.publicKeyPin),  // a backup key, kept offline
                    ],
                    expires: Date(timeIntervalSinceNow: 60 * 60 * 24 * 180)
                )
            ]
            try await CourierClient.withClient(configuration: configuration) { client in
                try await expectOK(client, "/get")
            }
            #expect(try Pin.publicKey(of: .bytes(Data(world.server.certificatePEM.utf8))) == Pin(world.server.publicKeyPin))
        }
    }

    @Test func clientCertificates() async throws {
        let world = try TLSWorld()
        let clientAuthority = try TestCertificates.authority("Client CA")
        let client = try TestCertificates.leaf("app", hosts: ["app.test"], issuer: clientAuthority, client: true)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try client.write(to: folder, name: "client")
        let p12Password = "correct horse"
        let bundle = folder.appendingPathComponent("payments.p12")
        try client.pkcs12(password: p12Password).write(to: bundle)
        try await withTLSServer(TestServerTLS(chain: [world.server], clientAuthority: clientAuthority)) { server in
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configuration.timeouts.connect = .seconds(120)  // the whole suite loads the machine
            configuration.tls.trustRoots = .only([.bytes(world.authority.certificateDER)])
            configuration.tls.clientIdentity = .pem(certificate: .file(files.certificate.path), privateKey: .file(files.key.path))
            configuration.tls.hostIdentities["127.0.0.1"] = .pkcs12(.file(bundle.path), password: p12Password)
            try await CourierClient.withClient(configuration: configuration) { client in
                try await expectOK(client, "/get")
            }
        }
    }
}
