import CourierTesting
import Foundation
import Testing

@Suite("ForwardProxy")
struct ForwardProxyTests {
    static let credentials = ForwardProxy.Credentials(user: "u", password: "p")
    static let authorization = "Proxy-Authorization: Basic " + Data("u:p".utf8).base64EncodedString()

    @Test func absoluteFormRequestsAreForwardedWithoutProxyCredentials() async throws {
        try await withTestServer { server in
            try await ForwardProxy.withProxy(credentials: ForwardProxyTests.credentials) { proxy in
                let response = try await rawRequest(
                    proxy.port, "GET", "http://127.0.0.1:\(server.port)/get?x=1", headers: [ForwardProxyTests.authorization]
                )
                #expect(response.status == 200)
                let json = try response.jsonObject()
                #expect(json["path"] as? String == "/get")
                #expect(proxy.forwardedRequests == 1)
                #expect(server.receivedRequests.count == 1)
                #expect(server.receivedRequests[0].uri == "/get?x=1")
                #expect(server.receivedRequests[0].header("Proxy-Authorization") == nil)
            }
        }
    }

    @Test func connectOpensATunnel() async throws {
        try await withTestServer { server in
            try await ForwardProxy.withProxy(credentials: ForwardProxyTests.credentials) { proxy in
                let connection = try await RawConnection.connect(port: proxy.port)
                try await connection.send("CONNECT 127.0.0.1:\(server.port) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\(ForwardProxyTests.authorization)\r\n\r\n")
                let established = try await connection.readResponse(toHead: true)
                #expect(established.status == 200)
                try await connection.send("GET /get HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n")
                let response = try await connection.readResponse()
                #expect(response.status == 200)
                await connection.close()
                #expect(proxy.tunnels == 1)
                #expect(server.receivedRequests.map(\.uri) == ["/get"])
            }
        }
    }

    @Test func missingCredentialsAreAnswered407() async throws {
        try await withTestServer { server in
            try await ForwardProxy.withProxy(credentials: ForwardProxyTests.credentials) { proxy in
                let response = try await rawRequest(proxy.port, "GET", "http://127.0.0.1:\(server.port)/get")
                #expect(response.status == 407)
                #expect(response.header("Proxy-Authenticate")?.hasPrefix("Basic") == true)
                #expect(proxy.refusedRequests == 1)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }
}
