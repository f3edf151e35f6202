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
            #expect(refused.status == 60)
            #expect(refused.stderr.hasPrefix("courier: the certificate of 127.0.0.1:\(server.port) was not issued by a trusted authority"), "\(refused.stderr)")
            #expect(refused.stderr.contains("--cacert"))
        }
    }

    @Test func anHTTPSProxyIsCheckedAsAServerIs() async throws {
        let files = try Files()
        defer { files.remove() }
        try await TestServer.withServer { server in
            try await ForwardProxy.withProxy(tls: TestServerTLS(chain: [files.server])) { proxy in
                let url = server.url("/get").absoluteString
                let trusted = await courier("fetch", "--connect-timeout", "120", url, "--proxy", "https://127.0.0.1:\(proxy.port)", "--cacert", files.caFile)
                #expect(trusted.status == 0, "\(trusted.stderr)")
                #expect(proxy.tunnels == 1)
                let refused = await courier("fetch", url, "--proxy", "https://127.0.0.1:\(proxy.port)")
                #expect(refused.status == 60)
                #expect(refused.stderr.contains("the certificate of the proxy 127.0.0.1:\(proxy.port)"), "\(refused.stderr)")
                #expect(server.receivedRequests.count == 1)
            }
        }
    }

    @Test func aLegacyServerIsRefusedUnlessTheFloorIsLoweredByName() async throws {
        let files = try Files()
        defer { files.remove() }
        var tls = TestServerTLS(chain: [files.server])
        tls.maximumVersion = 11
        try await TestServer.withServer(tls: tls) { server in
            let refused = await courier("fetch", "--connect-timeout", "120", server.url("/get").absoluteString, "--cacert", files.caFile)
            #expect(refused.status == 35)
            #expect(refused.stderr.hasPrefix("courier: 127.0.0.1:\(server.port) and courier share no TLS version"), "\(refused.stderr)")
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
            #expect(mismatched.status == 90)
            #expect(mismatched.stderr.hasPrefix("courier: no certificate of 127.0.0.1:\(server.port) matches --pin"), "\(mismatched.stderr)")
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
            #expect(without.status == 98)
            #expect(without.stderr.hasPrefix("courier: 127.0.0.1:\(server.port) refused the client certificate"), "\(without.stderr)")
            #expect(!without.stderr.contains("pa55"))
        }
    }

    @Test(
        "bad TLS options: a usage error is 2; as in curl, an unreadable CA file 77, client certificate or key 58",
        arguments: [
            (["--key", "/nonexistent.key"], 2), (["--cert", "/nonexistent.pem"], 58), (["--p12-password-env", "X"], 2),
            (["--cacert", "/nonexistent-ca.pem"], 77), (["--p12", "/nonexistent.p12"], 58),
        ] as [([String], Int32)])
    func badTLSOptions(options: [String], status: Int32) async {
        let run = await CourierCLI.run(["fetch", "https://127.0.0.1:1/"] + options, output: Output.capturing().0)
        #expect(run == status)
    }
}
