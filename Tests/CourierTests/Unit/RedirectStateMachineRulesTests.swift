import Foundation
import Testing

@testable import Courier

/// Method rewriting, limits, loops, insecure redirects and Location resolution.
@Suite("RedirectStateMachine rules")
struct RedirectStateMachineRulesTests {
    private static let body = Data("payload".utf8)

    private func request(_ method: CourierHTTPMethod = .get, _ url: String = "http://a.example/dir/sub/page", withBody: Bool = true) -> CourierHTTPRequest {
        CourierHTTPRequest(
            method: method, url: UnitSupport.url(url),
            headers: Headers([
                ("Content-Type", "text/plain"), ("Content-Length", "7"), ("Content-Encoding", "identity"),
                ("Content-Language", "en"), ("Content-Location", "/x"), ("Transfer-Encoding", "chunked"), ("X-Keep", "1"),
            ]),
            body: withBody ? .data(Self.body, contentType: "text/plain") : nil
        )
    }

    /// One step; returns the followed request or nil when delivered.
    private func step(
        _ status: Int, _ location: String?, from request: CourierHTTPRequest, policy: RedirectPolicy = .default
    ) throws(CourierError) -> CourierHTTPRequest? {
        var machine = RedirectStateMachine(policy: policy, request: request)
        switch try machine.next(status: status, location: location, request: request) {
        case .deliver: return nil
        case .follow(let next): return next
        }
    }

    // MARK: Method and body

    @Test(
        "Which method follows which status",
        arguments: [
            (301, CourierHTTPMethod.post, CourierHTTPMethod.get), (302, .post, .get), (303, .post, .get),
            (303, .put, .get), (303, .delete, .get), (303, .patch, .get), (303, .get, .get), (303, .head, .head),
            (301, .put, .put), (302, .delete, .delete), (301, .get, .get), (302, .head, .head),
            (307, .post, .post), (308, .post, .post), (307, .put, .put), (308, .delete, .delete), (307, .head, .head),
        ]
    )
    func methodRewriting(status: Int, method: CourierHTTPMethod, expected: CourierHTTPMethod) throws {
        let next = try #require(try step(status, "/next", from: request(method)))
        #expect(next.method == expected)
        if expected != method || (status == 303 && method != .head) {
            #expect(next.body == nil)
            for name in RedirectStateMachine.bodyHeaders { #expect(!next.headers.contains(name), "\(name)") }
        } else {
            #expect(next.body?.bytes == Self.body)
            #expect(next.headers["Content-Type"] == "text/plain")
            #expect(next.headers["Content-Length"] == "7")
        }
        #expect(next.headers["X-Keep"] == "1")
    }

    @Test("307 and 308 keep a POST's body byte for byte, with its content type", arguments: [307, 308])
    func bodyKept(status: Int) throws {
        let original = request(.post)
        let next = try #require(try step(status, "http://a.example/elsewhere", from: original))
        #expect(next.method == .post)
        #expect(next.body?.bytes == Self.body)
        #expect(next.body?.contentType == "text/plain")
        #expect(next.body?.length == 7)
    }

    // MARK: https → http

    @Test("https → http is refused unless the policy allows it", arguments: [301, 302, 303, 307, 308])
    func insecure(status: Int) throws {
        let secure = request(.get, "https://a.example/login")
        let error = try #require(UnitSupport.error { try step(status, "http://a.example/home", from: secure) })
        #expect(error.kind == .insecureRedirect)
        #expect(error.url?.absoluteString == "https://a.example/login")
        let allowed = try step(status, "http://a.example/home", from: secure, policy: RedirectPolicy(allowsInsecureRedirects: true))
        #expect(allowed?.url.absoluteString == "http://a.example/home")
    }

    @Test("http → https and https → https are fine; a relative Location on https stays https")
    func secureRedirects() throws {
        #expect(try step(301, "https://a.example/", from: request(.get, "http://a.example/"))?.url.absoluteString == "https://a.example/")
        #expect(try step(301, "https://b.example/", from: request(.get, "https://a.example/"))?.url.absoluteString == "https://b.example/")
        #expect(try step(301, "/x", from: request(.get, "https://a.example/"))?.url.absoluteString == "https://a.example/x")
        let error = try #require(UnitSupport.error { try step(301, "HTTP://a.example/", from: request(.get, "https://a.example/")) })
        #expect(error.kind == .insecureRedirect)
    }

    // MARK: Limits

    @Test("The default policy follows 10 redirects and refuses the 11th")
    func tooManyRedirects() throws {
        let initial = request(.get, "http://a.example/0")
        var machine = RedirectStateMachine(policy: .default, request: initial)
        var current = initial
        for index in 1...10 {
            guard case .follow(let next) = try machine.next(status: 302, location: "/\(index)", request: current) else {
                Issue.record("hop \(index) not followed")
                return
            }
            current = next
        }
        #expect(machine.hops.count == 10)
        let error = try #require(UnitSupport.error { try machine.next(status: 302, location: "/11", request: current) })
        #expect(error.kind == .tooManyRedirects)
        #expect(error.url == current.url)
        #expect(machine.hops.count == 10)
    }

    @Test("follow(maximum:) sets the limit", arguments: [1, 2, 5])
    func customLimit(maximum: Int) throws {
        let initial = request(.get, "http://a.example/0")
        var machine = RedirectStateMachine(policy: .follow(maximum: maximum), request: initial)
        var current = initial
        for index in 1...maximum {
            guard case .follow(let next) = try machine.next(status: 301, location: "/\(index)", request: current) else {
                Issue.record("hop \(index) not followed")
                return
            }
            current = next
        }
        #expect(UnitSupport.error { try machine.next(status: 301, location: "/last", request: current) }?.kind == .tooManyRedirects)
    }

    @Test("RedirectPolicy.none delivers the redirect itself", arguments: [301, 302, 303, 307, 308])
    func policyNone(status: Int) throws {
        #expect(try step(status, "/next", from: request(), policy: .none) == nil)
        #expect(RedirectPolicy.none.follows == false)
        #expect(RedirectPolicy(maximumRedirects: -3).maximumRedirects == 0)
        #expect(RedirectPolicy.default.maximumRedirects == 10)
        #expect(RedirectPolicy.default.allowsInsecureRedirects == false)
    }

    // MARK: Loops

    @Test("a → b → a with the same URL and method is a loop")
    func loop() throws {
        let initial = request(.get, "http://a.example/a")
        var machine = RedirectStateMachine(policy: .default, request: initial)
        guard case .follow(let atB) = try machine.next(status: 302, location: "http://b.example/b", request: initial) else {
            Issue.record("first hop not followed")
            return
        }
        let error = try #require(UnitSupport.error { try machine.next(status: 302, location: "http://a.example/a", request: atB) })
        #expect(error.kind == .redirectLoop)
        #expect(error.message.contains("http://a.example/a"))
        #expect(machine.hops.count == 1)
    }

    @Test("A redirect to itself, or to itself with only a new fragment, is a loop")
    func selfLoop() throws {
        let here = request(.get, "http://a.example/a")
        #expect(UnitSupport.error { try step(307, "http://a.example/a", from: here) }?.kind == .redirectLoop)
        #expect(UnitSupport.error { try step(307, "#frag", from: here) }?.kind == .redirectLoop)
    }

    @Test("The same URL with another method is not a loop: POST → 303 → GET of the same URL")
    func sameURLOtherMethod() throws {
        let post = request(.post, "http://a.example/form")
        var machine = RedirectStateMachine(policy: .default, request: post)
        guard case .follow(let get) = try machine.next(status: 303, location: "/form", request: post) else {
            Issue.record("303 not followed")
            return
        }
        #expect(get.method == .get)
        #expect(get.url.absoluteString == "http://a.example/form")
        #expect(UnitSupport.error { try machine.next(status: 303, location: "/form", request: get) }?.kind == .redirectLoop)
    }

    // MARK: Location

    @Test(
        "A relative Location is resolved against the current URL",
        arguments: [
            ("../x", "http://a.example/dir/x"),
            ("./x", "http://a.example/dir/sub/x"),
            ("x", "http://a.example/dir/sub/x"),
            ("/abs", "http://a.example/abs"),
            ("/abs?k=v", "http://a.example/abs?k=v"),
            ("?q=1", "http://a.example/dir/sub/page?q=1"),
            ("//b.example/p", "http://b.example/p"),
            ("../../../../top", "http://a.example/top"),
            ("/a b", "http://a.example/a%20b"),
            ("/caf%C3%A9", "http://a.example/caf%C3%A9"),
            ("/café", "http://a.example/caf%C3%A9"),
            ("HTTP://B.example/Up", "http://B.example/Up"),
            ("http://[::1]:8080/v6", "http://[::1]:8080/v6"),
        ]
    )
    func relativeLocation(location: String, expected: String) throws {
        let next = try #require(try step(302, location, from: request(.get)))
        #expect(next.url.absoluteString == expected)
    }

    @Test(
        "A Location that is not a usable http(s) URL is refused with invalidURL",
        arguments: ["/next\r\nSet-Cookie: x=1", "/a\nb", "/a\rb", "/a\0b", "http://b.example/\tx", "ftp://b.example/file", "http://", "http://user@/x"]
    )
    func invalidLocation(location: String) throws {
        let error = try #require(UnitSupport.error { try step(302, location, from: request(.get)) })
        #expect(error.kind == .invalidURL)
        #expect(!error.description.contains("\r"))
        #expect(!error.description.contains("\n"))
    }

    @Test("Non-redirect statuses and missing Locations are delivered", arguments: [200, 204, 300, 304, 305, 306, 399, 404])
    func deliverStatus(status: Int) throws {
        #expect(try step(status, "/next", from: request()) == nil)
    }

    @Test("A redirect status without a Location is delivered", arguments: [301, 302, 303, 307, 308])
    func deliverNoLocation(status: Int) throws {
        #expect(try step(status, nil, from: request()) == nil)
        #expect(try step(status, "", from: request()) == nil)
    }

    @Test("Hops record status, from and to, in order")
    func hops() throws {
        let initial = request(.post, "http://a.example/1")
        var machine = RedirectStateMachine(policy: .default, request: initial)
        var current = initial
        for (status, location) in [(301, "/2"), (307, "http://b.example/3"), (303, "4")] {
            guard case .follow(let next) = try machine.next(status: status, location: location, request: current) else {
                Issue.record("\(location) not followed")
                return
            }
            current = next
        }
        #expect(
            machine.hops == [
                RedirectHop(status: 301, from: UnitSupport.url("http://a.example/1"), to: UnitSupport.url("http://a.example/2")),
                RedirectHop(status: 307, from: UnitSupport.url("http://a.example/2"), to: UnitSupport.url("http://b.example/3")),
                RedirectHop(status: 303, from: UnitSupport.url("http://b.example/3"), to: UnitSupport.url("http://b.example/4")),
            ])
        #expect(current.method == .get)
    }

    @Test(
        "An origin is the lower-cased scheme and host with the effective port",
        arguments: [
            ("http://a.example/x", "http://a.example:80"),
            ("HTTPS://A.Example/x?q#f", "https://a.example:443"),
            ("https://a.example:8443", "https://a.example:8443"),
            ("http://user:pass@a.example:81/x", "http://a.example:81"),
            ("http://[::1]/x", "http://[::1]:80"),
            ("https://[::1]:9/x", "https://[::1]:9"),
            ("hxxps://a.example/x", "hxxps://a.example:80"),
        ]
    )
    func origin(url: String, expected: String) {
        #expect(RedirectStateMachine.origin(of: UnitSupport.url(url)) == expected)
    }
}
