import Courier
import CourierTesting
import Foundation
import Testing

/// `ClientConfiguration.proxyEnvironment`: the proxy decided for each request and each
/// redirect hop by its URL, through a real forward proxy and real servers.
@Suite("Proxies from the environment, through the client")
struct ProxyEnvironmentIntegrationTests {
    /// The ports the proxy was asked to open tunnels to.
    private func tunnelledPorts(_ proxy: ForwardProxy) -> [String] {
        proxy.receivedRequests.filter { $0.method == "CONNECT" }.map { String($0.uri.split(separator: ":").last ?? "") }
    }

    @Test func aHostInNoProxyGoesDirectlyAndTheOthersThroughTheProxy() async throws {
        try await withServer { proxied in
            try await withServer { direct in
                try await ForwardProxy.withProxy { proxy in
                    let environment = ProxyEnvironment(["http_proxy": "http://127.0.0.1:\(proxy.port)", "no_proxy": "127.0.0.1:\(direct.port)"])
                    try await withClient(proxied, configure: { $0.proxyEnvironment = environment }) { client in
                        let proxiedStatus = try await client.response(for: CourierRequest<CourierResponse>(path: proxied.url("/get").absoluteString)).status
                        #expect(proxiedStatus == 200)
                        let directStatus = try await client.response(for: CourierRequest<CourierResponse>(path: direct.url("/get").absoluteString)).status
                        #expect(directStatus == 200)
                    }
                    #expect(tunnelledPorts(proxy) == ["\(proxied.port)"])
                    #expect(proxied.receivedRequests.count == 1)
                    #expect(direct.receivedRequests.count == 1)
                }
            }
        }
    }

    @Test func aRedirectDecidesTheProxyAgainForTheNewOrigin() async throws {
        try await withServer { proxied in
            try await withServer { direct in
                try await ForwardProxy.withProxy { proxy in
                    let environment = ProxyEnvironment(["ALL_PROXY": "127.0.0.1:\(proxy.port)", "NO_PROXY": "127.0.0.1:\(direct.port)"])
                    try await withClient(proxied, configure: { $0.proxyEnvironment = environment }) { client in
                        let target = direct.url("/get").absoluteString
                        let response = try await client.response(for: CourierRequest<CourierResponse>(path: "/redirect-to?url=\(target)"))
                        #expect(response.status == 200)
                        #expect(response.redirects.count == 1)
                    }
                    // The first hop went through the proxy, the second straight to its origin.
                    #expect(tunnelledPorts(proxy) == ["\(proxied.port)"])
                    #expect(direct.receivedRequests.count == 1)
                }
            }
        }
    }

    @Test func proxyCredentialsStayOnTheProxyAndOriginCredentialsOnTheOrigin() async throws {
        let credentials = ForwardProxy.Credentials(user: "ada", password: "pr0xy@s3cret")
        try await withServer { server in
            try await ForwardProxy.withProxy(credentials: credentials) { proxy in
                let environment = ProxyEnvironment(["http_proxy": "http://ada:pr0xy%40s3cret@127.0.0.1:\(proxy.port)"])
                try await withClient(
                    server,
                    configure: {
                        $0.proxyEnvironment = environment
                        $0.authentication = Authentication(.bearer("origin-token"))
                    }
                ) { client in
                    let status = try await client.response(for: CourierRequest<CourierResponse>(path: "/get")).status
                    #expect(status == 200)
                }
                #expect(proxy.refusedRequests == 0)
                #expect(!proxy.receivedRequests.isEmpty)
                for head in proxy.receivedRequests {
                    #expect(head.header("Proxy-Authorization") == "Basic " + Data("ada:pr0xy@s3cret".utf8).base64EncodedString())
                    #expect(head.header("Authorization") == nil)
                }
                let sent = try #require(server.receivedRequests.first)
                #expect(sent.header("Authorization") == "Bearer origin-token")
                #expect(sent.header("Proxy-Authorization") == nil)
            }
        }
    }

    @Test func aRequestsOwnChoiceWinsOverTheEnvironment() async throws {
        try await withServer { server in
            try await ForwardProxy.withProxy { proxy in
                let environment = ProxyEnvironment(["http_proxy": "http://127.0.0.1:\(proxy.port)"])
                try await withClient(server, configure: { $0.proxyEnvironment = environment }) { client in
                    var request = CourierRequest<CourierResponse>(path: "/get")
                    request.connection.proxy = .direct
                    let status = try await client.response(for: request).status
                    #expect(status == 200)
                }
                #expect(proxy.receivedRequests.isEmpty)
                #expect(server.receivedRequests.count == 1)
            }
        }
    }

    @Test func anExplicitProxyTakesThePlaceOfTheEnvironmentsButNoProxyStillApplies() async throws {
        try await withServer { proxied in
            try await withServer { direct in
                try await ForwardProxy.withProxy { proxy in
                    try await withClient(
                        proxied,
                        configure: {
                            $0.proxy = Proxy(host: "127.0.0.1", port: proxy.port)
                            // The environment's own proxy is never reached: it listens nowhere.
                            $0.proxyEnvironment = ProxyEnvironment(["http_proxy": "http://127.0.0.1:1", "no_proxy": "127.0.0.1:\(direct.port)"])
                        }
                    ) { client in
                        let proxiedStatus = try await client.response(for: CourierRequest<CourierResponse>(path: "/get")).status
                        #expect(proxiedStatus == 200)
                        let directStatus = try await client.response(for: CourierRequest<CourierResponse>(path: direct.url("/get").absoluteString)).status
                        #expect(directStatus == 200)
                    }
                    #expect(tunnelledPorts(proxy) == ["\(proxied.port)"])
                    #expect(direct.receivedRequests.count == 1)
                }
            }
        }
    }

    @Test func aProxyThatCannotBeUsedFailsTheRequestAndNothingIsSent() async throws {
        try await withServer { server in
            let environment = ProxyEnvironment(["http_proxy": "socks4://127.0.0.1:1080"])
            try await withClient(server, configure: { $0.proxyEnvironment = environment }) { client in
                let error = await courierError { _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/get")) }
                #expect(error?.kind == .proxy)
                #expect(error?.message.contains("socks4") == true)
            }
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test("a proxy that cannot be reached is blamed as the proxy, on AsyncHTTPClient's road and on pinned connections", arguments: [false, true])
    func anUnreachableProxyIsBlamedOnEveryRoad(pinned: Bool) async throws {
        let closed = try ReservedPort()
        let environment = ProxyEnvironment(["http_proxy": "127.0.0.1:\(closed.port)", "https_proxy": "127.0.0.1:\(closed.port)"])
        let world = try TLSWorld()
        var policy = world.trustingAuthority
        policy.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(world.server.publicKeyPin)])]
        let check: (TestServer) async throws -> Void = { [policy] server in
            try await withClient(
                server,
                configure: {
                    $0.proxyEnvironment = environment
                    if pinned { $0.tls = policy }
                }
            ) { client in
                let error = await courierError { _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/get")) }
                #expect(error?.kind == .connectionFailed, "\(String(describing: error))")
                #expect(error?.proxy == Proxy(host: "127.0.0.1", port: closed.port))
                #expect(error?.message.contains("the proxy 127.0.0.1:\(closed.port)") == true)
                #expect(error?.requestMayHaveBeenSent == false)
            }
            #expect(server.receivedRequests.isEmpty)
        }
        if pinned { try await withTLSServer(world.serverTLS, check) } else { try await withServer(check) }
    }

    @Test func noVariableIsReadUnlessAsked() {
        #expect(ClientConfiguration().proxyEnvironment == nil)
        #expect(ClientConfiguration().transportConfiguration.proxyEnvironment == nil)
    }
}
