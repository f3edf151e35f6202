import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Proxies spoken to over TLS (https://): checked as an origin is, CONNECT inside")
struct HTTPSProxyTests {
    static let credentials = ForwardProxy.Credentials(user: "proxy-user", password: "pr0xy s3cret")

    @Test("an https origin through an https proxy: TLS to the proxy, CONNECT with its credentials inside it, TLS to the origin inside the tunnel")
    func httpsOrigin() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await ForwardProxy.withProxy(credentials: Self.credentials, tls: world.serverTLS) { proxy in
                let url = try #require(URL(string: "https://proxy-user:pr0xy%20s3cret@127.0.0.1:\(proxy.port)"))
                let setting = try Proxy(url: url)
                #expect(setting.kind == .https)
                try await withClient(
                    server,
                    configure: {
                        $0.tls = world.trustingAuthority; $0.proxy = setting
                    }
                ) { client in
                    var request = CourierRequest<CourierResponse>(path: "/get")
                    request.headers.add(name: "Proxy-Authorization", value: "Basic bm90LWZvci10aGUtb3JpZ2lu")
                    let response = try await client.response(for: request)
                    #expect(response.status == 200)
                }
                let connect = try #require(proxy.receivedRequests.first)
                #expect(connect.method == "CONNECT")
                #expect(connect.uri == "127.0.0.1:\(server.port)")
                #expect(connect.header("Host") == "127.0.0.1:\(server.port)")
                #expect(connect.header("Proxy-Authorization") == "Basic " + Data("proxy-user:pr0xy s3cret".utf8).base64EncodedString())
                #expect(server.receivedRequests.count == 1)
                #expect(server.receivedRequests.first?.header("Proxy-Authorization") == nil)
            }
        }
    }

    @Test("a plain http origin through an https proxy, named by the environment")
    func httpOriginFromTheEnvironment() async throws {
        let world = try TLSWorld()
        try await withServer { server in
            try await ForwardProxy.withProxy(tls: world.serverTLS) { proxy in
                let environment = ProxyEnvironment(["http_proxy": "https://127.0.0.1:\(proxy.port)"])
                try await withClient(
                    server,
                    configure: {
                        $0.tls = world.trustingAuthority; $0.proxyEnvironment = environment
                    }
                ) { client in
                    let response = try await client.response(for: CourierRequest<CourierResponse>(path: "/get"))
                    #expect(response.status == 200)
                }
                #expect(proxy.tunnels == 1)
                #expect(server.receivedRequests.count == 1)
            }
        }
    }

    @Test("a proxy whose certificate is not trusted fails with a TLS error that names the proxy; nothing is sent")
    func untrustedProxy() async throws {
        let world = try TLSWorld()
        try await withServer { server in
            try await ForwardProxy.withProxy(tls: world.serverTLS) { proxy in
                let setting = Proxy(host: "127.0.0.1", port: proxy.port, kind: .https)
                try await withClient(
                    server,
                    configure: {
                        $0.proxy = setting; $0.retryPolicy = .none
                    }
                ) { client in
                    let error = await courierError { _ = try await client.send(CourierRequest<Void>(path: "/get")) }
                    #expect(error?.kind == .tls)
                    #expect(error?.message.contains("The proxy 127.0.0.1:\(proxy.port)") == true, "\(String(describing: error))")
                    #expect(error?.requestMayHaveBeenSent == false)
                }
                #expect(proxy.receivedRequests.isEmpty)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }
}
