import Courier
import Foundation
import NIOConcurrencyHelpers
import Testing

/// One scoping case: cookies set from URLs, time passing, and the `Cookie` header one URL gets.
struct CookieCase: Sendable, CustomTestStringConvertible {
    enum Step: Sendable {
        /// A `Set-Cookie` field received from a URL.
        case set(String, from: String)
        /// Seconds passing.
        case wait(TimeInterval)
    }

    let name: String
    let steps: [Step]
    let url: String
    let expected: String?

    var testDescription: String { name }

    init(_ name: String, _ steps: [Step], _ url: String, _ expected: String?) {
        self.name = name
        self.steps = steps
        self.url = url
        self.expected = expected
    }

    /// One cookie set from `from`, then asked for at `url`.
    static func one(_ name: String, _ field: String, from: String, _ url: String, _ expected: String?) -> CookieCase {
        CookieCase(name, [.set(field, from: from)], url, expected)
    }
}

@Suite("Cookie scoping (RFC 6265)")
struct CookieScopingTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01 00:00:00 UTC

    static let cases: [CookieCase] = [
        // Host-only and Domain
        .one("no Domain: sent to the host that set it", "a=1", from: "http://example.com/", "http://example.com/", "a=1"),
        .one("no Domain: not sent to a subdomain", "a=1", from: "http://example.com/", "http://www.example.com/", nil),
        .one("no Domain: not sent to the parent", "a=1", from: "http://www.example.com/", "http://example.com/", nil),
        .one("Domain: sent to subdomains", "a=1; Domain=example.com", from: "http://example.com/", "http://www.example.com/", "a=1"),
        .one("Domain with a leading dot", "a=1; Domain=.example.com", from: "http://example.com/", "http://a.b.example.com/", "a=1"),
        .one("Domain compared without case", "a=1; Domain=EXAMPLE.com", from: "http://www.example.com/", "http://shop.example.com/", "a=1"),
        .one("Domain of the parent, set by a subdomain", "a=1; Domain=example.com", from: "http://www.example.com/", "http://example.com/", "a=1"),
        .one("Domain of a sibling is refused", "a=1; Domain=other.example.com", from: "http://www.example.com/", "http://other.example.com/", nil),
        .one("Domain of another site is refused", "a=1; Domain=example.org", from: "http://example.com/", "http://example.org/", nil),
        .one("Domain must end on a label boundary", "a=1; Domain=example.com", from: "http://badexample.com/", "http://example.com/", nil),
        .one("Domain below the host is refused", "a=1; Domain=www.example.com", from: "http://example.com/", "http://www.example.com/", nil),
        .one("Domain cookie not sent to a look-alike", "a=1; Domain=example.com", from: "http://example.com/", "http://notexample.com/", nil),
        .one("empty Domain is ignored: host-only", "a=1; Domain=", from: "http://example.com/", "http://www.example.com/", nil),
        // Public suffixes
        .one("Domain=com is refused", "a=1; Domain=com", from: "http://example.com/", "http://example.com/", nil),
        .one("Domain=co.uk is refused", "a=1; Domain=co.uk", from: "http://www.example.co.uk/", "http://www.example.co.uk/", nil),
        .one("Domain under co.uk is accepted", "a=1; Domain=example.co.uk", from: "http://www.example.co.uk/", "http://shop.example.co.uk/", "a=1"),
        .one("wildcard rule *.ck makes foo.ck public", "a=1; Domain=foo.ck", from: "http://www.foo.ck/", "http://www.foo.ck/", nil),
        .one("exception rule !www.ck makes www.ck registrable", "a=1; Domain=www.ck", from: "http://www.ck/", "http://a.www.ck/", "a=1"),
        .one("private-section suffix github.io is refused", "a=1; Domain=github.io", from: "http://ada.github.io/", "http://eve.github.io/", nil),
        .one("Domain equal to a public-suffix host: host-only", "a=1; Domain=co.uk", from: "http://co.uk/", "http://co.uk/", "a=1"),
        .one("...and never sent below it", "a=1; Domain=co.uk", from: "http://co.uk/", "http://example.co.uk/", nil),
        // IP addresses
        .one("IPv4 host-only", "a=1", from: "http://127.0.0.1:8080/", "http://127.0.0.1:9090/", "a=1"),
        .one("IPv4 with Domain equal to itself", "a=1; Domain=127.0.0.1", from: "http://127.0.0.1/", "http://127.0.0.1/", "a=1"),
        .one("IPv4 with a partial Domain is refused", "a=1; Domain=0.0.1", from: "http://127.0.0.1/", "http://127.0.0.1/", nil),
        .one("IPv4 not sent to another address", "a=1", from: "http://127.0.0.1/", "http://127.0.0.2/", nil),
        .one("IPv6 host-only", "a=1", from: "http://[::1]:8080/", "http://[::1]/", "a=1"),
        // Paths
        .one("default path: the folder of the URL", "a=1", from: "http://example.com/docs/page", "http://example.com/docs/other", "a=1"),
        .one("default path: not sent outside the folder", "a=1", from: "http://example.com/docs/page", "http://example.com/other", nil),
        .one("default path of a top-level page is /", "a=1", from: "http://example.com/page", "http://example.com/x/y", "a=1"),
        .one("Path: sent below it", "a=1; Path=/docs", from: "http://example.com/", "http://example.com/docs/x", "a=1"),
        .one("Path: sent to itself", "a=1; Path=/docs", from: "http://example.com/", "http://example.com/docs", "a=1"),
        .one("Path: not sent to a longer name", "a=1; Path=/docs", from: "http://example.com/", "http://example.com/docsearch", nil),
        .one("Path with a slash: not sent to the bare folder", "a=1; Path=/docs/", from: "http://example.com/", "http://example.com/docs", nil),
        .one("Path without a leading slash: default path", "a=1; Path=docs", from: "http://example.com/a/b", "http://example.com/a/c", "a=1"),
        CookieCase("longer paths first", [.set("a=1; Path=/", from: "http://example.com/"), .set("b=2; Path=/docs", from: "http://example.com/")], "http://example.com/docs/x", "b=2; a=1"),
        CookieCase("same path: older first", [.set("b=2", from: "http://example.com/"), .wait(1), .set("a=1", from: "http://example.com/")], "http://example.com/", "b=2; a=1"),
        // Secure
        .one("Secure: sent over https", "a=1; Secure", from: "https://example.com/", "https://example.com/", "a=1"),
        .one("Secure: not sent over http", "a=1; Secure", from: "https://example.com/", "http://example.com/", nil),
        .one("Secure: refused from http", "a=1; Secure", from: "http://example.com/", "https://example.com/", nil),
        CookieCase("http cannot replace a Secure cookie", [.set("a=1; Secure", from: "https://example.com/"), .set("a=2", from: "http://example.com/")], "https://example.com/", "a=1"),
        .one("__Host- with a Domain is refused", "__Host-a=1; Secure; Path=/; Domain=example.com", from: "https://example.com/", "https://example.com/", nil),
        .one("__Secure- without Secure is refused", "__Secure-a=1", from: "https://example.com/", "https://example.com/", nil),
        // Expiry
        CookieCase("Max-Age: alive before it runs out", [.set("a=1; Max-Age=60", from: "http://example.com/"), .wait(59)], "http://example.com/", "a=1"),
        CookieCase("Max-Age: gone when it runs out", [.set("a=1; Max-Age=60", from: "http://example.com/"), .wait(60)], "http://example.com/", nil),
        CookieCase("Max-Age=0 deletes", [.set("a=1", from: "http://example.com/"), .set("a=; Max-Age=0", from: "http://example.com/")], "http://example.com/", nil),
        CookieCase("negative Max-Age deletes", [.set("a=1", from: "http://example.com/"), .set("a=1; Max-Age=-5", from: "http://example.com/")], "http://example.com/", nil),
        CookieCase("Expires in the past deletes", [.set("a=1", from: "http://example.com/"), .set("a=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT", from: "http://example.com/")], "http://example.com/", nil),
        CookieCase("Expires in the future: alive", [.set("a=1; Expires=Fri, 02 Jan 2026 00:00:00 GMT", from: "http://example.com/"), .wait(86_399)], "http://example.com/", "a=1"),
        CookieCase("Expires in the future: gone after it", [.set("a=1; Expires=Fri, 02 Jan 2026 00:00:00 GMT", from: "http://example.com/"), .wait(86_400)], "http://example.com/", nil),
        .one("Max-Age wins over a past Expires", "a=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=100", from: "http://example.com/", "http://example.com/", "a=1"),
        .one("Max-Age wins even when Expires comes last", "a=1; Max-Age=0; Expires=Fri, 01 Jan 2027 00:00:00 GMT", from: "http://example.com/", "http://example.com/", nil),
        CookieCase("a bad Max-Age is ignored", [.set("a=1; Max-Age=1e3", from: "http://example.com/"), .wait(10_000)], "http://example.com/", "a=1"),
        CookieCase("lenient dates: two-digit year, dashes", [.set("a=1; Expires=Sat, 02-Jan-27 10:18:14 GMT", from: "http://example.com/"), .wait(86_400 * 300)], "http://example.com/", "a=1"),
        // Replacement
        CookieCase("same name, domain and path: replaced", [.set("a=1", from: "http://example.com/"), .set("a=2", from: "http://example.com/")], "http://example.com/", "a=2"),
        CookieCase("a replacement keeps its creation time", [.set("a=1", from: "http://example.com/"), .wait(1), .set("b=2", from: "http://example.com/"), .wait(1), .set("a=3", from: "http://example.com/")], "http://example.com/", "a=3; b=2"),
        CookieCase("another path: both kept", [.set("a=1; Path=/", from: "http://example.com/"), .set("a=2; Path=/x", from: "http://example.com/")], "http://example.com/x/y", "a=2; a=1"),
        CookieCase("host-only replaced by a Domain cookie of the same domain", [.set("a=1", from: "http://example.com/"), .set("a=2; Domain=example.com", from: "http://example.com/")], "http://www.example.com/", "a=2"),
        // Parsing
        .one("attribute names without case", "a=1; sEcUrE; PATH=/x; max-AGE=10", from: "https://example.com/", "https://example.com/x", "a=1"),
        .one("no = : ignored", "garbage", from: "http://example.com/", "http://example.com/", nil),
        .one("empty name: ignored", "=value", from: "http://example.com/", "http://example.com/", nil),
        .one("blanks around name and value trimmed", " a =  1 ; Path=/", from: "http://example.com/", "http://example.com/", "a=1"),
        .one("quoted value kept as sent", "a=\"x y\"", from: "http://example.com/", "http://example.com/", "a=\"x y\""),
    ]

    @Test(arguments: CookieScopingTests.cases)
    func scoping(_ scenario: CookieCase) {
        let clock = NIOLockedValueBox(CookieScopingTests.start)
        let jar = CookieJar(now: { clock.withLockedValue { $0 } })
        for step in scenario.steps {
            switch step {
            case .set(let field, let from): jar.store(setCookie: field, from: URL(string: from)!)
            case .wait(let seconds): clock.withLockedValue { $0 += seconds }
            }
        }
        #expect(jar.cookieHeader(for: URL(string: scenario.url)!) == scenario.expected)
    }

    @Test func tableIsLargeEnough() {
        #expect(CookieScopingTests.cases.count >= 40)
    }
}
