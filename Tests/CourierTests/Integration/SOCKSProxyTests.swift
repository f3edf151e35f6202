import Courier
import CourierServerSentEvents
import CourierTesting
import Foundation
import Testing

@Suite("SOCKS5 proxies: socks5 and socks5h, with and without credentials, on every request")
struct SOCKSProxyTests {
    static let credentials = ForwardProxy.Credentials(user: "socks-user", password: "s0cks s3cret")

    /// The test server's URL with `localhost` for its host, a name the proxy or the client
    /// must resolve.
    static func byName(_ server: TestServer, _ path: String) -> String {
        "http://localhost:\(server.port)\(path)"
    }

    @Test("socks5h sends the name for the proxy to resolve; socks5 resolves it here and sends the address")
    func nameOrAddress() async throws {
        try await withServer { server in
            try await SOCKSProxy.withProxy { proxy in
                for kind in [Proxy.Kind.socks5h, .socks5] {
                    try await withClient(nil, configure: { $0.proxy = Proxy(host: "127.0.0.1", port: proxy.port, kind: kind) }) { client in
                        let response = try await client.response(for: CourierRequest<CourierResponse>(path: Self.byName(server, "/get?kind=\(kind)")))
                        #expect(response.status == 200)
                    }
                }
                let tunnels = proxy.tunnels
                #expect(tunnels.count == 2)
                #expect(tunnels.map(\.host) == ["localhost", "127.0.0.1"])
                #expect(tunnels.map(\.byName) == [true, false])
                #expect(tunnels.allSatisfy { $0.port == server.port && $0.user == nil })
                #expect(server.receivedRequests.map(\.uri) == ["/get?kind=socks5h", "/get?kind=socks5"])
            }
        }
    }

    @Test("credentials go to the proxy in its handshake only, never to the origin")
    func credentialsOnTheProxyHopOnly() async throws {
        try await withServer { server in
            try await SOCKSProxy.withProxy(credentials: Self.credentials) { proxy in
                let url = try #require(URL(string: "socks5h://socks-user:s0cks%20s3cret@127.0.0.1:\(proxy.port)"))
                try await withClient(server, configure: { $0.proxy = try? Proxy(url: url) }) { client in
                    var request = CourierRequest<CourierResponse>(path: "/headers")
                    request.headers.add(name: "Proxy-Authorization", value: "Basic bm90LWZvci10aGUtb3JpZ2lu")
                    let response = try await client.response(for: request)
                    #expect(response.status == 200)
                }
                #expect(proxy.tunnels.map(\.user) == ["socks-user"])
                #expect(proxy.tunnels.map(\.password) == ["s0cks s3cret"])
                let seen = try #require(server.receivedRequests.first)
                #expect(seen.header("Proxy-Authorization") == nil)
                #expect(!seen.headers.contains { $0.value.contains("s3cret") })
            }
        }
    }

    @Test("refused credentials, missing ones and an unreachable target are proxy errors, nothing sent to the origin")
    func refusals() async throws {
        try await withServer { server in
            try await SOCKSProxy.withProxy(credentials: Self.credentials) { proxy in
                let wrong = Proxy(host: "127.0.0.1", port: proxy.port, user: "socks-user", password: "wrong", kind: .socks5h)
                try await withClient(
                    server,
                    configure: {
                        $0.proxy = wrong; $0.retryPolicy = .none
                    }
                ) { client in
                    let error = await courierError { _ = try await client.send(CourierRequest<Void>(path: "/get")) }
                    #expect(error?.kind == .proxy)
                    #expect(error?.message.contains("refused its user name and password") == true, "\(String(describing: error))")
                    #expect(error?.requestMayHaveBeenSent == false)
                }
                let none = Proxy(host: "127.0.0.1", port: proxy.port, kind: .socks5h)
                try await withClient(
                    server,
                    configure: {
                        $0.proxy = none; $0.retryPolicy = .none
                    }
                ) { client in
                    let error = await courierError { _ = try await client.send(CourierRequest<Void>(path: "/get")) }
                    #expect(error?.kind == .proxy)
                    #expect(error?.message.contains("accepts none of the ways to sign in") == true, "\(String(describing: error))")
                }
                #expect(proxy.refusals == 2)
                #expect(server.receivedRequests.isEmpty)
            }
            try await SOCKSProxy.withProxy { proxy in
                let closed = try ReservedPort()
                try await withClient(
                    nil,
                    configure: {
                        $0.proxy = Proxy(host: "127.0.0.1", port: proxy.port, kind: .socks5h); $0.retryPolicy = .none
                    }
                ) { client in
                    let error = await courierError { _ = try await client.send(CourierRequest<Void>(path: closed.url("/get").absoluteString)) }
                    #expect(error?.kind == .proxy)
                    #expect(error?.message.contains("the connection was refused (reply 5)") == true, "\(String(describing: error))")
                }
            }
        }
    }

    @Test("a SOCKS5 proxy that cannot be reached is named as the failure's cause")
    func unreachableProxy() async throws {
        try await withServer { server in
            let closed = try ReservedPort()
            try await withClient(
                server,
                configure: {
                    $0.proxy = Proxy(host: "127.0.0.1", port: closed.port, kind: .socks5h); $0.retryPolicy = .none
                }
            ) { client in
                let error = await courierError { _ = try await client.send(CourierRequest<Void>(path: "/get")) }
                #expect(error?.message.contains("127.0.0.1:\(closed.port)") == true, "\(String(describing: error))")
                #expect(error?.requestMayHaveBeenSent == false)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }

    @Test("an https origin is reached through the proxy with TLS end to end, its pins checked", arguments: [false, true])
    func https(pinned: Bool) async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await SOCKSProxy.withProxy(credentials: Self.credentials) { proxy in
                var policy = world.trustingAuthority
                if pinned { policy.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(world.server.publicKeyPin)])] }
                let setting = Proxy(host: "127.0.0.1", port: proxy.port, user: "socks-user", password: "s0cks s3cret", kind: .socks5h)
                try await withClient(
                    server,
                    configure: {
                        $0.tls = policy; $0.proxy = setting
                    }
                ) { client in
                    let response = try await client.response(for: CourierRequest<CourierResponse>(path: "/get"))
                    #expect(response.status == 200)
                }
                #expect(proxy.tunnels.map(\.port) == [server.port])
                #expect(server.receivedRequests.count == 1)
            }
        }
    }

    @Test("ALL_PROXY names a SOCKS5 proxy, NO_PROXY still goes around it, and an event stream goes through it")
    func fromTheEnvironment() async throws {
        try await withServer { server in
            try await SOCKSProxy.withProxy(credentials: Self.credentials) { proxy in
                let environment = ProxyEnvironment([
                    "ALL_PROXY": "socks5h://socks-user:s0cks%20s3cret@127.0.0.1:\(proxy.port)", "NO_PROXY": "127.0.0.1",
                ])
                try await withClient(nil, configure: { $0.proxyEnvironment = environment }) { client in
                    let direct = try await client.response(for: CourierRequest<CourierResponse>(path: server.url("/get").absoluteString))
                    #expect(direct.status == 200)
                    #expect(proxy.tunnels.isEmpty)
                    var events: [String] = []
                    for try await event in client.events(CourierRequest<Void>(path: Self.byName(server, "/events?count=3")), reconnection: .never) {
                        events.append(event.data)
                    }
                    #expect(events == ["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"])
                }
                #expect(proxy.tunnels.map(\.host) == ["localhost"])
            }
        }
    }

    @Test("CourierAsyncHTTPClientTransport on its own refuses a SOCKS5 proxy instead of speaking HTTP to it")
    func aloneTheStandardTransportRefuses() async throws {
        let closed = try ReservedPort()
        let transport = CourierAsyncHTTPClientTransport(configuration: TransportConfiguration(proxy: Proxy(host: "127.0.0.1", port: closed.port, kind: .socks5)))
        let request = try CourierHTTPRequest(method: .get, url: #require(URL(string: "http://127.0.0.1:1/get")))
        let error = await courierError { _ = try await transport.send(request, deadline: nil) }
        #expect(error?.kind == .invalidConfiguration)
        try await transport.shutdown()
    }
}
