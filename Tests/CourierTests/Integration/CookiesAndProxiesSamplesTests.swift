import Courier
import CourierTesting
import Foundation
import Testing

/// The samples of the Cookies, proxies and redaction article, compiled and run (the test
/// server and proxy stand in for shop.example.com and proxy.internal).
@Suite("Cookies and proxies article samples")
struct CookiesAndProxiesSamplesTests {
    @Test func aJarWithAnInjectedClock() {
        let fixedDate = Date(timeIntervalSince1970: 1_767_225_600)
        let jar = CookieJar(now: { fixedDate })
        jar.store(setCookie: "id=42; Max-Age=60; Path=/", from: URL(string: "https://example.com/login")!)
        #expect(jar.cookieHeader(for: URL(string: "https://example.com/account")!) == "id=42")
    }

    @Test func savingCookiesAndGoingThroughAProxy() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-samples-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withProxy(credentials: .init(user: "ada", password: "s3cret")) { server, proxy in
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            let jar = try CookieJar(file: folder.appendingPathComponent("cookies.json"))
            configuration.cookies = jar
            configuration.proxy = try Proxy(url: URL(string: "http://ada:s3cret@127.0.0.1:\(proxy.port)")!)
            configuration.sensitiveHeaders = ["X-Api-Key"]
            try await CourierClient.withClient(configuration: configuration) { client in
                let set = "/response-headers?Set-Cookie=" + queryEncoded("cart=7; Max-Age=600")
                _ = try await client.response(for: CourierRequest<CourierResponse>(path: set))
            }
            try jar.save()
            #expect(try CookieJar(file: folder.appendingPathComponent("cookies.json")).allCookies.map(\.value) == ["7"])
            #expect(proxy.tunnels >= 1)
        }
    }
}
