import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

@Suite("courier --proxy and --verbose")
struct FetchCookiesAndProxyTests {
    @Test func proxyCredentialsComeFromTheURLAndStayOnTheProxyHop() async throws {
        try await withServer { server in
            try await ForwardProxy.withProxy(credentials: .init(user: "ada", password: "p@ss")) { proxy in
                let run = await courier("fetch", server.url("/headers").absoluteString, "--proxy", "http://ada:p%40ss@127.0.0.1:\(proxy.port)", "-v")
                let refused = await courier("fetch", server.url("/headers").absoluteString, "--proxy", "http://ada:nope@127.0.0.1:\(proxy.port)")
                #expect(run.status == 0, "\(run.stderr)")
                #expect(proxy.tunnels >= 1)
                #expect(server.receivedRequests.allSatisfy { $0.header("Proxy-Authorization") == nil })
                #expect(!run.stderr.contains("p@ss") && !run.stderr.contains("nope"))
                #expect(refused.status == 56, "\(refused.stderr)")
                #expect(refused.stderr.contains("the proxy 127.0.0.1:\(proxy.port)"))
                #expect(!refused.stderr.contains("nope"))
            }
        }
    }

    /// Runs `courier ARGS…` with `variables` as its whole environment.
    private func courierWith(_ variables: [String: String], _ arguments: String...) async -> (status: Int32, stdout: String, stderr: String, raw: Data) {
        await CourierCLI.$environment.withValue(variables) { await courier(arguments) }
    }

    @Test func theEnvironmentsProxyIsUsedAsCurlUsesIt() async throws {
        try await withServer { server in
            try await ForwardProxy.withProxy { proxy in
                let url = server.url("/get").absoluteString
                let through = await courierWith(["http_proxy": "127.0.0.1:\(proxy.port)"], "fetch", url)
                #expect(through.status == 0, "\(through.stderr)")
                #expect(proxy.tunnels == 1)
                // HTTP_PROXY in capitals is never read (a CGI program's request header).
                let capitals = await courierWith(["HTTP_PROXY": "127.0.0.1:\(proxy.port)"], "fetch", url)
                #expect(capitals.status == 0, "\(capitals.stderr)")
                // --proxy '' uses none; --noproxy and NO_PROXY list the hosts reached directly.
                let none = await courierWith(["http_proxy": "127.0.0.1:\(proxy.port)"], "fetch", url, "--proxy", "")
                let listed = await courierWith(["http_proxy": "127.0.0.1:\(proxy.port)"], "fetch", url, "--noproxy", "127.0.0.1")
                let bypassed = await courierWith(["ALL_PROXY": "127.0.0.1:\(proxy.port)", "NO_PROXY": "*"], "-s", url)
                // -x takes the place of the environment's proxy; NO_PROXY still applies to it.
                let explicit = await courierWith(["NO_PROXY": "127.0.0.1:\(server.port)"], "fetch", url, "-x", "http://127.0.0.1:\(proxy.port)")
                for run in [none, listed, bypassed, explicit] { #expect(run.status == 0, "\(run.stderr)") }
                #expect(proxy.tunnels == 1)
                #expect(server.receivedRequests.count == 6)
            }
        }
    }

    @Test func aFailureOfTheEnvironmentsProxyIsToldAsTheProxysAsWithProxy() async throws {
        try await withServer { server in
            try await ForwardProxy.withProxy(credentials: .init(user: "ada", password: "right")) { proxy in
                let url = server.url("/get").absoluteString
                let refused = await courierWith(["http_proxy": "http://ada:wrong@127.0.0.1:\(proxy.port)"], "fetch", url)
                let explicit = await courier("fetch", url, "--proxy", "http://ada:wrong@127.0.0.1:\(proxy.port)")
                #expect(refused.status == explicit.status, "\(refused.stderr)")
                #expect(refused.status == 56)
                #expect(refused.stderr.contains("the proxy 127.0.0.1:\(proxy.port)"), "\(refused.stderr)")
                #expect(!refused.stderr.contains("wrong"))
            }
            // A proxy that is not there: the connection to it failed, not the one to the server.
            let closed = try ReservedPort()
            let unreachable = await courierWith(["http_proxy": "127.0.0.1:\(closed.port)"], "fetch", url(server))
            #expect(unreachable.status == 7, "\(unreachable.stderr)")
            #expect(unreachable.stderr.contains("the proxy 127.0.0.1:\(closed.port)"), "\(unreachable.stderr)")
            #expect(server.receivedRequests.isEmpty)
        }
    }

    private func url(_ server: TestServer) -> String { server.url("/get").absoluteString }

    @Test func aProxyTheEnvironmentNamesThatCannotBeUsedFailsTheCommand() async throws {
        try await withServer { server in
            let run = await courierWith(["https_proxy": "socks4://ada:secret@127.0.0.1:1080", "http_proxy": "socks4://ada:secret@127.0.0.1:1080"], "fetch", server.url("/get").absoluteString)
            #expect(run.status != 0)
            #expect(run.stderr.contains("socks4"), "\(run.stderr)")
            #expect(!run.stderr.contains("secret"))
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func badProxyURLsAreInvalidInput() async {
        let run = await courier("fetch", "http://127.0.0.1:1/get", "--proxy", "socks4://secret@proxy")
        #expect(run.status == 2)
        #expect(!run.stderr.contains("secret"))
    }

    @Test func verbosePrintsEveryHopWithSecretsRedacted() async throws {
        try await withServer { server in
            let run = await courier(
                "fetch", server.url("/basic-auth/ada/s3cret").absoluteString, "--user", "ada:s3cret", "-v",
                "-H", "X-Trace: visible"
            )
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stderr.split(separator: "\n").map(String.init)
            #expect(lines.contains("> GET /basic-auth/ada/s3cret HTTP/1.1"))
            #expect(lines.contains("> Host: 127.0.0.1:\(server.port)"))
            #expect(lines.contains("> X-Trace: visible"))
            #expect(lines.contains("< HTTP/1.1 401 Unauthorized"))
            #expect(lines.contains("> Authorization: <redacted>"))
            #expect(lines.contains("< HTTP/1.1 200 OK"))
            let basic = Data("ada:s3cret".utf8).base64EncodedString()
            #expect(!run.stderr.contains(basic))

            let jar = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cli-verbose-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: jar) }
            let cookies = await courier("fetch", server.url("/cookies/set?token=t0k%2Ben").absoluteString, "--verbose", "--cookie-jar", jar.path)
            #expect(cookies.status == 0, "\(cookies.stderr)")
            #expect(cookies.stderr.contains("< Set-Cookie: <redacted>"))
            #expect(cookies.stderr.contains("> Cookie: <redacted>"))
            #expect(cookies.stderr.contains("< HTTP/1.1 302 Found"))
            #expect(!cookies.stderr.contains("t0k+en"))
        }
    }
}
