import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

@Suite("courier fetch --cacert, --pin, --cert/--key and --p12")
struct FetchTLSTests {
    /// An authority, a server certificate it issued, and files of both in a new folder.
    struct Files {
        let folder: URL
        let authority: TestCertificate
        let server: TestCertificate
        let caFile: String

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cli-tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            authority = try TestCertificates.authority()
            server = try TestCertificates.leaf(issuer: authority)
            caFile = try authority.write(to: folder, name: "ca").certificate.path
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    @Test func cacertTrustsTheServer() async throws {
        let files = try Files()
        defer { files.remove() }
        try await TestServer.withServer(tls: TestServerTLS(chain: [files.server])) { server in
            let run = await courier("fetch", "--connect-timeout", "120", server.url("/get").absoluteString, "--cacert", files.caFile)
            #expect(run.status == 0, "\(run.stderr)")
            let refused = await courier("fetch", server.url("/get").absoluteString)
            #expect(refused.status == 4)
            #expect(refused.stderr.hasPrefix("courier: tls (unknownAuthority)"))
        }
    }

    @Test func aLegacyServerIsRefusedUnlessTheFloorIsLoweredByName() async throws {
        let files = try Files()
        defer { files.remove() }
        var tls = TestServerTLS(chain: [files.server])
        tls.maximumVersion = 11
        try await TestServer.withServer(tls: tls) { server in
            let refused = await courier("fetch", "--connect-timeout", "120", server.url("/get").absoluteString, "--cacert", files.caFile)
            #expect(refused.status == 4)
            #expect(refused.stderr.hasPrefix("courier: tls (unsupportedVersion)"), "\(refused.stderr)")
            #expect(refused.stderr.contains("--tls-min"))
            let lowered = await courier("fetch", "--connect-timeout", "120", server.url("/get").absoluteString, "--cacert", files.caFile, "--tls-min", "1.1")
            #expect(lowered.status == 0, "\(lowered.stderr)")
            let bad = await courier("fetch", server.url("/get").absoluteString, "--tls-min", "1.9")
            #expect(bad.status == 2)
            #expect(server.receivedRequests.count == 1)
        }
    }

    @Test func pinsAreEnforcedWithBackups() async throws {
        let files = try Files()
        defer { files.remove() }
        let other = "sha256/" + Data(repeating: 9, count: 32).base64EncodedString()
        try await TestServer.withServer(tls: TestServerTLS(chain: [files.server])) { server in
            let url = server.url("/get").absoluteString
            let matched = await courier("fetch", "--connect-timeout", "120", url, "--cacert", files.caFile, "--pin", other, "--pin", files.server.publicKeyPin)
            #expect(matched.status == 0, "\(matched.stderr)")
            let mismatched = await courier("fetch", "--connect-timeout", "120", url, "--cacert", files.caFile, "--pin", other)
            #expect(mismatched.status == 4)
            #expect(mismatched.stderr.hasPrefix("courier: tls (pinMismatch)"))
            #expect(server.receivedRequests.count == 1)
            let malformed = await courier("fetch", url, "--pin", "md5/abc")
            #expect(malformed.status == 2)
        }
    }

    @Test func clientCertificatesFromPEMAndPKCS12() async throws {
        let files = try Files()
        defer { files.remove() }
        let clientAuthority = try TestCertificates.authority("Client CA")
        let client = try TestCertificates.leaf("ada", hosts: ["ada.test"], issuer: clientAuthority, client: true)
        let pem = try client.write(to: files.folder, name: "client")
        let bundle = files.folder.appendingPathComponent("client.p12")
        try client.pkcs12(password: "pa55").write(to: bundle)
        let variable = "COURIER_TEST_P12_\(UUID().uuidString.replacingOccurrences(of: "-", with: "_"))"
        try await TestServer.withServer(tls: TestServerTLS(chain: [files.server], clientAuthority: clientAuthority)) { server in
            let url = server.url("/get").absoluteString
            let withPEM = await courier("fetch", "--connect-timeout", "120", url, "--cacert", files.caFile, "--cert", pem.certificate.path, "--key", pem.key.path)
            #expect(withPEM.status == 0, "\(withPEM.stderr)")
            // The variable is given to this command line alone: setting it in the process's
            // environment would race with every other thread that reads it.
            let withBundle = await CourierCLI.$environment.withValue([variable: "pa55"]) {
                await courier("fetch", "--connect-timeout", "120", url, "--cacert", files.caFile, "--p12", bundle.path, "--p12-password-env", variable)
            }
            #expect(withBundle.status == 0, "\(withBundle.stderr)")
            let without = await courier("fetch", "--connect-timeout", "120", url, "--cacert", files.caFile)
            #expect(without.status == 4)
            #expect(without.stderr.hasPrefix("courier: tls (clientCertificateRejected)"))
            #expect(!without.stderr.contains("pa55"))
        }
    }

    @Test(arguments: [
        ["--key", "/nonexistent.key"], ["--cert", "/nonexistent.pem"], ["--p12-password-env", "X"],
        ["--cacert", "/nonexistent-ca.pem"], ["--p12", "/nonexistent.p12"],
    ])
    func badTLSOptionsAreInvalidInput(options: [String]) async {
        let run = await CourierCLI.run(["fetch", "https://127.0.0.1:1/"] + options, output: Output.capturing().0)
        #expect(run == 2)
    }
}
