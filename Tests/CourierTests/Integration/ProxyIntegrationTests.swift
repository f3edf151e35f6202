import Courier
import CourierTesting
import Foundation
import Testing

/// Runs `body` with a test server and a forward proxy in front of it, then stops both.
func withProxy<T>(
    credentials: ForwardProxy.Credentials? = nil,
    _ body: (TestServer, ForwardProxy) async throws -> T
) async throws -> T {
    try await withServer { server in
        try await ForwardProxy.withProxy(credentials: credentials) { proxy in try await body(server, proxy) }
    }
}

@Suite("HTTP proxy")
struct ProxyIntegrationTests {
    static let credentials = ForwardProxy.Credentials(user: "proxy-user", password: "pr0xy s3cret")

    @Test func requestsAreTunnelledWithCredentialsOnTheProxyHopOnly() async throws {
        try await withProxy(credentials: ProxyIntegrationTests.credentials) { server, proxy in
            try await withClient(
                server,
                configure: {
                    $0.proxy = Proxy(host: "127.0.0.1", port: proxy.port, user: "proxy-user", password: "pr0xy s3cret")
                }
            ) { client in
                var request = CourierRequest<CourierResponse>(path: "/headers")
                // A Proxy-Authorization of the caller's would only reach the origin: it is dropped.
                request.headers.add(name: "Proxy-Authorization", value: "Basic c2hvdWxkLW5vdC1sZWFr")
                let response = try await client.response(for: request)
                #expect(response.status == 200)
                _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/redirect/2"))
            }
            #expect(proxy.tunnels >= 1)
            #expect(proxy.forwardedRequests == 0)
            let expected = "Basic " + Data("proxy-user:pr0xy s3cret".utf8).base64EncodedString()
            #expect(!proxy.receivedRequests.isEmpty)
            for head in proxy.receivedRequests {
                #expect(head.method == "CONNECT")
                #expect(head.uri == "127.0.0.1:\(server.port)")
                // The Host field names the port, as the target does.
                #expect(head.header("Host") == "127.0.0.1:\(server.port)")
                #expect(head.header("Proxy-Authorization") == expected)
            }
            #expect(server.receivedRequests.count == 4)
            for request in server.receivedRequests {
                #expect(request.header("Proxy-Authorization") == nil, "\(request.uri)")
            }
        }
    }

    /// Runs `body` with an HTTPS server, a proxy requiring ``credentials``, and a client that
    /// trusts the server's authority (and pins its key when `pinned`) and goes through the
    /// proxy with `password`; `body` runs after the client is shut down.
    private func withTLSBehindProxy(
        pinned: Bool, password: String, _ request: (CourierClient) async throws -> Void, then body: (TestServer, ForwardProxy) throws -> Void
    ) async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await ForwardProxy.withProxy(credentials: ProxyIntegrationTests.credentials) { proxy in
                var policy = world.trustingAuthority
                if pinned { policy.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(world.server.publicKeyPin)])] }
                let proxySetting = Proxy(host: "127.0.0.1", port: proxy.port, user: "proxy-user", password: password)
                try await withClient(
                    server,
                    configure: {
                        $0.tls = policy; $0.proxy = proxySetting
                    }, request)
                try body(server, proxy)
            }
        }
    }

    @Test(
        "an https host with TLS settings of its own (custom roots, or pins) is reached through the proxy, its credentials on CONNECT only",
        arguments: [false, true])
    func anHTTPSHostWithItsOwnTLSSettingsGoesThroughTheProxy(pinned: Bool) async throws {
        try await withTLSBehindProxy(pinned: pinned, password: "pr0xy s3cret") { client in
            // A Proxy-Authorization of the request's own would reach only the origin: it is
            // not sent, on either road.
            var request = CourierRequest<CourierResponse>(path: "/get")
            request.headers.add(name: "Proxy-Authorization", value: "Basic bm90LWZvci10aGUtb3JpZ2lu")
            let response = try await client.response(for: request)
            #expect(response.status == 200)
        } then: { server, proxy in
            #expect(proxy.tunnels >= 1)
            let expected = "Basic " + Data("proxy-user:pr0xy s3cret".utf8).base64EncodedString()
            let connect = try #require(proxy.receivedRequests.first)
            #expect(connect.method == "CONNECT")
            #expect(connect.uri == "127.0.0.1:\(server.port)")
            #expect(connect.header("Host") == "127.0.0.1:\(server.port)")
            #expect(connect.header("Proxy-Authorization") == expected)
            #expect(server.receivedRequests.count == 1)
            #expect(server.receivedRequests.first?.header("Proxy-Authorization") == nil)
        }
    }

    @Test func aPinnedHostsTunnelNamesItsPortInHostAndFailsWithTheProxyKindOnWrongCredentials() async throws {
        try await withTLSBehindProxy(pinned: true, password: "wrong") { client in
            let error = await courierError { _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/get")) }
            #expect(error?.kind == .proxy)
            #expect(error?.requestMayHaveBeenSent == false)
            #expect(error?.message.contains("407") == true)
        } then: { server, proxy in
            #expect(proxy.receivedRequests.first?.header("Host") == "127.0.0.1:\(server.port)")
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func wrongCredentialsFailWithTheProxyKind() async throws {
        try await withProxy(credentials: ProxyIntegrationTests.credentials) { server, proxy in
            try await withClient(
                server,
                configure: {
                    $0.proxy = Proxy(host: "127.0.0.1", port: proxy.port, user: "proxy-user", password: "wrong")
                }
            ) { client in
                let error = await courierError { _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/get")) }
                #expect(error?.kind == .proxy)
                #expect(error?.requestMayHaveBeenSent == false)
                #expect(error?.message.contains("407") == true)
            }
            #expect(proxy.refusedRequests >= 1)
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func aProxyWithoutCredentialsNeedsNone() async throws {
        try await withProxy { server, proxy in
            try await withClient(server, configure: { $0.proxy = try! Proxy(url: URL(string: "http://127.0.0.1:\(proxy.port)")!) }) { client in
                let response = try await client.response(for: CourierRequest<CourierResponse>(path: "/get"))
                #expect(response.status == 200)
            }
            #expect(proxy.tunnels >= 1)
            #expect(proxy.receivedRequests.allSatisfy { $0.header("Proxy-Authorization") == nil })
        }
    }

    @Test func proxyURLsCarryTheirCredentials() throws {
        let proxy = try Proxy(url: URL(string: "http://ada:p%40ss%3Aword@proxy.example:3128")!)
        #expect(proxy.host == "proxy.example")
        #expect(proxy.port == 3128)
        #expect(proxy.credentials == Proxy.Credentials(user: "ada", password: "p@ss:word"))
        #expect(proxy.description == "ada@proxy.example:3128")
        #expect(try Proxy(url: URL(string: "http://proxy.example")!).port == Proxy.defaultPort)
        let error = UnitSupport.error { try Proxy(url: URL(string: "ftp://u:secret@proxy.example")!) }
        #expect(error?.kind == .invalidURL)
        #expect(error?.message.contains("secret") == false)
    }
}

@Suite("HTTP proxy failures")
struct ProxyFailureTests {
    @Test func anUnreachableProxyIsNamedInTheError() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.proxy = Proxy(host: "127.0.0.1", port: 1) }) { client in
                let error = await courierError { _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/get")) }
                #expect(error?.kind == .connectionFailed)
                #expect(error?.message.contains("proxy 127.0.0.1:1") == true)
            }
            #expect(server.receivedRequests.isEmpty)
        }
    }
}
