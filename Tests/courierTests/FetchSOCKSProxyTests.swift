import CourierTesting
import Foundation
import Testing

@testable import courier

@Suite("courier: SOCKS5 proxies, named by --proxy or by the environment")
struct FetchSOCKSProxyTests {
    static let credentials = ForwardProxy.Credentials(user: "socks-user", password: "pw")

    @Test("--proxy socks5h://… and all_proxy reach the origin through the proxy, the credentials at the proxy only")
    func throughTheProxy() async throws {
        try await withServer { server in
            try await SOCKSProxy.withProxy(credentials: Self.credentials) { proxy in
                let target = "http://localhost:\(server.port)/get"
                let named = await courier("fetch", target, "--proxy", "socks5h://socks-user:pw@127.0.0.1:\(proxy.port)", "-s", "-o", "/dev/null")
                #expect(named.status == 0, "\(named.stderr)")
                let variables = ["PATH": "/usr/bin:/bin", "all_proxy": "socks5h://socks-user:pw@127.0.0.1:\(proxy.port)"]
                let environment = await CourierCLI.$environment.withValue(variables) { await courier("fetch", target, "-o", "/dev/null") }
                #expect(environment.status == 0, "\(environment.stderr)")
                #expect(proxy.tunnels.map(\.host) == ["localhost", "localhost"])
                #expect(proxy.tunnels.allSatisfy { $0.user == "socks-user" })
                #expect(server.receivedRequests.count == 2)
            }
        }
    }

    @Test("a refused SOCKS5 sign-in fails with the proxy named and nothing sent")
    func refused() async throws {
        try await withServer { server in
            try await SOCKSProxy.withProxy(credentials: Self.credentials) { proxy in
                let run = await courier("fetch", server.url("/get").absoluteString, "--proxy", "socks5h://socks-user:wrong@127.0.0.1:\(proxy.port)")
                #expect(run.status != 0)
                #expect(run.stderr.hasPrefix("courier: the SOCKS5 proxy 127.0.0.1:\(proxy.port) refused its user name and password"), "\(run.stderr)")
                #expect(!run.stderr.contains("wrong"))
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }
}
