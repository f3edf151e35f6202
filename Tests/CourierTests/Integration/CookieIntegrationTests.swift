import Courier
import CourierTesting
import Foundation
import Testing

/// Percent-encodes everything but letters and digits, for URLs nested in a query.
func queryEncoded(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
}

@Suite("Cookie jar on the wire")
struct CookieIntegrationTests {
    @Test func cookiesSetOnARedirectReachTheNextHop() async throws {
        try await withServer { server in
            let jar = CookieJar()
            try await withClient(server, configure: { $0.cookies = jar }) { client in
                let response = try await client.response(for: CourierRequest<CourierResponse>(path: "/cookies/set?a=1&b=two"))
                let echo = try response.decode(CookieEcho.self)
                #expect(echo.cookies == ["a": "1", "b": "two"])
                #expect(echo.header == "a=1; b=two")
                #expect(response.redirects.count == 1)
            }
            #expect(server.receivedRequests.first?.header("Cookie") == nil)
            #expect(jar.allCookies.map(\.name) == ["a", "b"])
        }
    }

    @Test func cookiesPersistAcrossRequestsAndCanBeDeleted() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.cookies = CookieJar() }) { client in
                _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/cookies/set?keep=1&drop=2"))
                let deleted = try await client.response(for: CourierRequest<CourierResponse>(path: "/cookies/delete?drop"))
                #expect(try deleted.decode(CookieEcho.self).header == "keep=1")
                var own = CourierRequest<CourierResponse>(path: "/cookies")
                own.headers.add(name: "Cookie", value: "mine=0")
                #expect(try await client.response(for: own).decode(CookieEcho.self).header == "mine=0; keep=1")
            }
        }
    }

    @Test func eachHopGetsTheCookiesOfItsOwnURL() async throws {
        try await withTwoServers { first, second in
            let back = "http://127.0.0.1:\(second.port)/cookies"
            let viaLocalhost = "http://localhost:\(second.port)/cookies/redirect?to=\(queryEncoded(back))&set=\(queryEncoded("l=1; Path=/"))"
            let start = "/cookies/redirect?to=\(queryEncoded(viaLocalhost))&set=\(queryEncoded("i=1; Path=/"))"
            let jar = CookieJar()
            try await withClient(first, configure: { $0.cookies = jar }) { client in
                let response = try await client.response(for: CourierRequest<CourierResponse>(path: start))
                #expect(response.redirects.count == 2)
                // Cookies ignore ports: 127.0.0.1's cookie goes to the second server too, after
                // a redirect that left the origin; localhost's does not.
                #expect(try response.decode(CookieEcho.self).header == "i=1")
            }
            let atLocalhost = second.receivedRequests.first { $0.uri.hasPrefix("/cookies/redirect") }
            #expect(atLocalhost != nil)
            #expect(atLocalhost?.header("Cookie") == nil)
            #expect(Set(jar.allCookies.map(\.domain)) == ["127.0.0.1", "localhost"])
        }
    }

    @Test func withoutAJarNoCookieIsKept() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let response = try await client.response(for: CourierRequest<CourierResponse>(path: "/cookies/set?a=1"))
                #expect(try response.decode(CookieEcho.self).header == "")
            }
        }
    }

    @Test func downloadsUseTheJarToo() async throws {
        try await withServer { server in
            let jar = CookieJar()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cookie-download-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try await withClient(server, configure: { $0.cookies = jar }) { client in
                let result = try await client.download(CourierRequest<Void>(path: "/cookies/set?d=1"), to: .file(folder.appendingPathComponent("echo.json")))
                let echo = try JSONDecoder().decode(CookieEcho.self, from: Data(contentsOf: result.fileURL))
                #expect(echo.header == "d=1")
            }
        }
    }
}

/// The `/cookies` echo of the test server.
struct CookieEcho: Decodable {
    var cookies: [String: String]
    var header: String
}
