import Foundation
import Testing

@testable import Courier

@Suite("NO_PROXY: the hosts reached without a proxy")
struct ProxyBypassTests {
    @Test(
        "a host name covers itself and the names under it, nothing that merely ends the same way",
        arguments: [
            ("example.com", "example.com", true), ("example.com", "www.example.com", true), ("example.com", "a.b.example.com", true),
            ("example.com", "notexample.com", false), ("example.com", "example.com.evil.net", false), (".example.com", "example.com", true),
            (".example.com", "www.example.com", true), ("example.com.", "WWW.Example.COM.", true), ("localhost", "localhost", true),
            ("localhost", "127.0.0.1", false), ("internal", "service.internal", true), ("internal", "internals", false),
        ]
    )
    func names(list: String, host: String, bypassed: Bool) {
        #expect(ProxyBypass(list).contains(host: host, port: 80) == bypassed)
    }

    @Test(
        "an address covers that address, a CIDR network every address inside it; a name is not resolved",
        arguments: [
            ("10.1.2.3", "10.1.2.3", true), ("10.1.2.3", "10.1.2.4", false), ("10.0.0.0/8", "10.200.3.4", true), ("10.0.0.0/8", "11.0.0.1", false),
            ("192.168.1.0/24", "192.168.1.255", true), ("192.168.1.0/24", "192.168.2.1", false), ("172.16.0.0/12", "172.31.255.1", true),
            ("172.16.0.0/12", "172.32.0.1", false), ("0.0.0.0/0", "8.8.8.8", true), ("::1", "[::1]", true), ("::1", "::1", true), ("[::1]", "::1", true),
            ("fd00::/8", "[fd12:3456::1]", true), ("fd00::/8", "[fe80::1]", false), ("10.0.0.0/8", "ten.example", false), ("10.0.0.0/8", "::ffff:a00:1", false),
        ]
    )
    func addresses(list: String, host: String, bypassed: Bool) {
        #expect(ProxyBypass(list).contains(host: host, port: 443) == bypassed)
    }

    @Test("an entry with a port covers only requests to that port")
    func ports() {
        let bypass = ProxyBypass("example.com:8080, 10.0.0.0/8:443, [::1]:9000")
        #expect(bypass.contains(host: "api.example.com", port: 8080))
        #expect(!bypass.contains(host: "api.example.com", port: 80))
        #expect(bypass.contains(host: "10.9.9.9", port: 443))
        #expect(!bypass.contains(host: "10.9.9.9", port: 80))
        #expect(bypass.contains(host: "[::1]", port: 9000))
        #expect(!bypass.contains(host: "[::1]", port: 9001))
        #expect(bypass.ignoredEntries.isEmpty)
    }

    @Test("* covers every host; commas and white space separate entries; an empty list covers nothing")
    func listShapes() {
        #expect(ProxyBypass("*").contains(host: "anything.example", port: 1))
        let list = ProxyBypass(" a.example,b.example\tc.example \n d.example ,, ")
        #expect(["a.example", "b.example", "c.example", "d.example"].allSatisfy { list.contains(host: $0, port: 80) })
        #expect(list.entries.count == 4)
        #expect(!ProxyBypass("").contains(host: "a.example", port: 80))
        #expect(!ProxyBypass(" , ").contains(host: "a.example", port: 80))
    }

    @Test("entries that are not hosts, addresses or networks are left out and listed", arguments: ["10.0.0.0/33", "::/129", "host:99999", "host:", "a/b", "[::1", "[::1]x", "b@d", "10.0.0.0/-1", "10.0.0.0/８"])
    func unreadable(entry: String) {
        let bypass = ProxyBypass("good.example, \(entry)")
        #expect(bypass.ignoredEntries == [entry])
        #expect(bypass.entries == [.domain("good.example", port: nil)])
    }
}

@Suite("Proxies from the environment, with curl's precedence")
struct ProxyEnvironmentTests {
    let http = URL(string: "http://origin.example/x")!
    let https = URL(string: "https://origin.example/x")!

    @Test("http_proxy is read in lower case only; HTTP_PROXY is never read")
    func httpProxyLowerCaseOnly() throws {
        #expect(try ProxyEnvironment(["HTTP_PROXY": "http://evil.example:1"]).proxy(for: http) == nil)
        let proxy = try ProxyEnvironment(["http_proxy": "http://proxy.internal:3128", "HTTP_PROXY": "http://evil.example:1"]).proxy(for: http)
        #expect(proxy == Proxy(host: "proxy.internal", port: 3128))
    }

    @Test("https_proxy before HTTPS_PROXY, and each before all_proxy and ALL_PROXY")
    func precedence() throws {
        let every = ["https_proxy": "lower:1", "HTTPS_PROXY": "upper:2", "all_proxy": "all:3", "ALL_PROXY": "ALL:4"]
        #expect(try ProxyEnvironment(every).proxy(for: https)?.host == "lower")
        #expect(try ProxyEnvironment(every.filter { $0.key != "https_proxy" }).proxy(for: https)?.host == "upper")
        #expect(try ProxyEnvironment(["all_proxy": "all:3", "ALL_PROXY": "ALL:4"]).proxy(for: https)?.host == "all")
        #expect(try ProxyEnvironment(["ALL_PROXY": "ALL:4"]).proxy(for: https)?.port == 4)
        #expect(try ProxyEnvironment(["ALL_PROXY": "ALL:4"]).proxy(for: http)?.port == 4)
        // The scheme's own variable wins for that scheme only.
        #expect(try ProxyEnvironment(["https_proxy": "secure:1", "all_proxy": "all:3"]).proxy(for: http)?.host == "all")
    }

    @Test("a variable set to nothing means no proxy, and the search stops there")
    func setToNothing() throws {
        #expect(try ProxyEnvironment(["https_proxy": "", "ALL_PROXY": "all:3"]).proxy(for: https) == nil)
        #expect(try ProxyEnvironment(["http_proxy": "", "all_proxy": "all:3"]).proxy(for: http) == nil)
        #expect(!ProxyEnvironment(["http_proxy": "", "https_proxy": ""]).namesAProxy)
        #expect(ProxyEnvironment(["ALL_PROXY": "all:3"]).namesAProxy)
    }

    @Test("no_proxy before NO_PROXY; a bypassed host goes directly, others through the proxy")
    func bypass() throws {
        let environment = ProxyEnvironment(["https_proxy": "proxy:1", "no_proxy": "origin.example", "NO_PROXY": "other.example"])
        #expect(try environment.proxy(for: https) == nil)
        #expect(try environment.proxy(for: URL(string: "https://other.example/")!)?.host == "proxy")
        let byPort = ProxyEnvironment(["https_proxy": "proxy:1", "NO_PROXY": "origin.example:8443"])
        #expect(try byPort.proxy(for: URL(string: "https://origin.example:8443/")!) == nil)
        #expect(try byPort.proxy(for: https)?.host == "proxy")
    }

    @Test("credentials in the variable go to the proxy; a proxy without a port gets 1080, as in curl")
    func credentialsAndPort() throws {
        let proxy = try ProxyEnvironment(["https_proxy": "http://ada:s%40cret@proxy.internal"]).proxy(for: https)
        #expect(proxy?.credentials == Proxy.Credentials(user: "ada", password: "s@cret"))
        #expect(proxy?.port == 1080)
    }

    @Test("a proxy that cannot be used fails the request instead of being gone around", arguments: ["socks4://proxy:1080", "ftp://proxy:21", "http://", "socks5h://"])
    func unusable(written: String) {
        let error = #expect(throws: CourierError.self) { try ProxyEnvironment(["https_proxy": written]).proxy(for: https) }
        #expect(error?.kind == .proxy)
        // The message never shows a password the variable holds.
        let withPassword = #expect(throws: CourierError.self) { try ProxyEnvironment(["https_proxy": "socks4://ada:secret@proxy:1080"]).proxy(for: https) }
        #expect(withPassword?.message.contains("secret") == false)
    }

    @Test("SOCKS5 proxies are read with their kind, credentials and port")
    func socks() throws {
        let remote = try ProxyEnvironment(["ALL_PROXY": "socks5h://ada:pw@gateway:1081"]).proxy(for: https)
        #expect(remote?.kind == .socks5h)
        #expect(remote?.credentials == Proxy.Credentials(user: "ada", password: "pw"))
        #expect(remote?.port == 1081)
        #expect(remote?.description == "socks5h://ada@gateway:1081")
        let local = try ProxyEnvironment(["http_proxy": "SOCKS5://gateway"]).proxy(for: URL(string: "http://origin.example/")!)
        #expect(local?.kind == .socks5)
        #expect(local?.port == 1080)
    }

    @Test("only http and https URLs (and ws, wss) are proxied")
    func otherSchemes() throws {
        let environment = ProxyEnvironment(["ALL_PROXY": "proxy:1"])
        #expect(try environment.proxy(for: URL(string: "file:///etc/hosts")!) == nil)
        #expect(try environment.proxy(for: URL(string: "wss://origin.example/socket")!)?.host == "proxy")
    }
}
