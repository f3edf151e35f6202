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
                #expect(head.header("Proxy-Authorization") == expected)
            }
            #expect(server.receivedRequests.count == 4)
            for request in server.receivedRequests {
                #expect(request.header("Proxy-Authorization") == nil, "\(request.uri)")
            }
        }
    }

    @Test func anHTTPSHostWithItsOwnTLSSettingsIsRefusedRatherThanSentAroundTheProxy() async throws {
        try await ForwardProxy.withProxy { proxy in
            var configuration = ClientConfiguration()
            configuration.proxy = Proxy(host: "127.0.0.1", port: proxy.port)
            configuration.tls.pins = [HostPins(host: "*", pins: [try Pin("sha256/" + String(repeating: "A", count: 43) + "=")])]
            let client = CourierClient(configuration: configuration)
            let error = await courierError { _ = try await client.response(for: CourierRequest<CourierResponse>(path: "https://127.0.0.1:1/get")) }
            try await client.shutdown()
            #expect(error?.kind == .proxy)
            #expect(error?.message.contains("TLS settings of its own") == true)
            #expect(proxy.receivedRequests.isEmpty)
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
        let error = UnitSupport.error { try Proxy(url: URL(string: "https://u:secret@proxy.example")!) }
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
