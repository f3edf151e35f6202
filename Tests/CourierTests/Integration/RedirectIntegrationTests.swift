import Courier
import CourierTesting
import Foundation
import Testing

/// The redirect credential matrix against real servers: two origins (two ports), or one host
/// under two names (127.0.0.1 and localhost).
@Suite("Redirects against real servers")
struct RedirectIntegrationTests {
    enum Chain: String, CaseIterable, Sendable {
        case sameOrigin = "a→a"
        case crossOrigin = "a→b"
        case crossThenSame = "a→b→b"
        case crossThenBack = "a→b→a"
        case hostChange = "a→a' (other host name)"
    }

    static let credentials = ["Authorization", "Cookie", "Proxy-Authorization", "X-Api-Key"]

    /// Builds the redirect URL for a chain, starting on `a`, ending on `/anything/end`.
    static func start(_ chain: Chain, status: Int, a: TestServer, b: TestServer) -> (path: String, final: TestServer) {
        func redirect(on server: URL, to target: URL) -> URL {
            var components = URLComponents(url: server.appendingPathComponent("redirect-to"), resolvingAgainstBaseURL: false)!
            components.queryItems = [URLQueryItem(name: "url", value: target.absoluteString), URLQueryItem(name: "status_code", value: String(status))]
            return components.url!
        }
        let endA = a.url("/anything/end"), endB = b.url("/anything/end")
        switch chain {
        case .sameOrigin:
            return (redirect(on: a.baseURL, to: endA).absoluteString, a)
        case .crossOrigin:
            return (redirect(on: a.baseURL, to: endB).absoluteString, b)
        case .crossThenSame:
            return (redirect(on: a.baseURL, to: redirect(on: b.baseURL, to: endB)).absoluteString, b)
        case .crossThenBack:
            return (redirect(on: a.baseURL, to: redirect(on: b.baseURL, to: endA)).absoluteString, a)
        case .hostChange:
            let otherName = URL(string: "http://localhost:\(a.port)/anything/end")!
            return (redirect(on: a.baseURL, to: otherName).absoluteString, a)
        }
    }

    @Test(arguments: [301, 302, 303, 307, 308], Chain.allCases)
    func credentialsNeverCrossOrigins(status: Int, chain: Chain) async throws {
        try await withTwoServers { a, b in
            try await withClient(nil) { client in
                let (path, final) = Self.start(chain, status: status, a: a, b: b)
                var request = CourierRequest<CourierResponse>(method: .get, path: path)
                request.headers = [
                    "Authorization": "Basic dTpw", "Cookie": "session=1", "Proxy-Authorization": "Basic eDp5",
                    "X-Api-Key": "k", "X-Trace": "t",
                ]
                request.sensitiveHeaders = ["X-Api-Key"]
                let response = try await client.send(request)
                #expect(response.status == 200)
                let arrived = try #require(final.receivedRequests.last { $0.path == "/anything/end" })
                #expect(arrived.header("X-Trace") == "t")
                for name in Self.credentials {
                    if chain == .sameOrigin {
                        #expect(arrived.header(name) != nil, "\(name) should survive a same-origin redirect")
                    } else {
                        #expect(arrived.header(name) == nil, "\(name) crossed origins in \(chain.rawValue) with \(status)")
                    }
                }
                let expectedHops = chain == .crossThenSame || chain == .crossThenBack ? 2 : 1
                #expect(response.redirects.count == expectedHops)
                #expect(response.redirects.allSatisfy { $0.status == status })
            }
        }
    }

    @Test(arguments: [(301, "GET"), (302, "GET"), (303, "GET"), (307, "POST"), (308, "POST")])
    func postIsRewrittenOrKeptByStatus(status: Int, expectedMethod: String) async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var request = CourierRequest<Echo>(method: .post, path: "/redirect-to?url=/anything/target&status_code=\(status)", body: .text("payload"))
                request.validators = [.statusCode(200..<300)]
                let echo = try await client.send(request)
                #expect(echo.method == expectedMethod)
                #expect(echo.data == (expectedMethod == "POST" ? "payload" : ""))
                #expect((echo.header("Content-Type") != nil) == (expectedMethod == "POST"))
            }
        }
    }

    @Test func relativeAndAbsoluteChainsAreFollowedAndCounted() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let relative = try await client.response(for: CourierRequest<CourierResponse>(path: "/redirect/4"))
                #expect(relative.redirects.count == 4)
                #expect(relative.url.path == "/get")
                let absolute = try await client.response(for: CourierRequest<CourierResponse>(path: "/absolute-redirect/3"))
                #expect(absolute.redirects.count == 3)
                #expect(absolute.redirects.first?.from == server.url("/absolute-redirect/3"))
            }
        }
    }

    @Test func limitIsEnforcedAndNoFollowDeliversTheRedirect() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.redirectPolicy = .follow(maximum: 2) }) { client in
                let error = await courierError { _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/redirect/3")) }
                #expect(error?.kind == .tooManyRedirects)
            }
            try await withClient(server, configure: { $0.redirectPolicy = .none }) { client in
                var request = CourierRequest<CourierResponse>(path: "/redirect/3")
                request.validators = []
                let response = try await client.send(request)
                #expect(response.status == 302)
                #expect(response.headers["Location"] != nil)
                #expect(response.redirects.isEmpty)
            }
        }
    }

    @Test func defaultLimitIsTen() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let ten = try await client.response(for: CourierRequest<CourierResponse>(path: "/redirect/10"))
                #expect(ten.redirects.count == 10)
                let error = await courierError { _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/redirect/11")) }
                #expect(error?.kind == .tooManyRedirects)
            }
        }
    }

    @Test func loopsAreDetected() async throws {
        let response = "HTTP/1.1 302 Found\r\nLocation: /same\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        let server = try await FaultServer.start(.raw(Array(response.utf8)))
        let error = await courierError {
            try await withClient(nil) { client in
                _ = try await client.response(for: CourierRequest<CourierResponse>(path: server.url.appendingPathComponent("same").absoluteString))
            }
        }
        try await server.shutdown()
        #expect(error?.kind == .redirectLoop)
    }
}
