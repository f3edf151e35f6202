import Foundation
import Testing

@testable import Courier

/// The credential matrix: statuses × kind of origin change × chain shape, driving
/// `RedirectStateMachine` directly as the client does (each followed request is fed back in).
@Suite("RedirectStateMachine credential matrix")
struct RedirectStateMachineTests {
    enum Change: String, Sendable, CaseIterable {
        case sameOrigin, hostChange, portChange, schemeChange

        /// The "b" origin of the chain; "a" is always http://a.example.
        var otherOrigin: String {
            switch self {
            case .sameOrigin: return "http://a.example"
            case .hostChange: return "http://b.example"
            case .portChange: return "http://a.example:8080"
            case .schemeChange: return "https://a.example"
            }
        }
    }

    enum Chain: String, Sendable, CaseIterable {
        case aToB = "a→b"
        case aToBToB = "a→b→b"
        case aToBToA = "a→b→a"
    }

    struct Scenario: Sendable, CustomTestStringConvertible {
        var change: Change
        var chain: Chain
        var testDescription: String { "\(change.rawValue) \(chain.rawValue)" }

        static let all: [Scenario] = Change.allCases.flatMap { change in Chain.allCases.map { Scenario(change: change, chain: $0) } }

        /// The Location of each hop, all distinct so that no hop is a loop.
        var locations: [String] {
            let a = "http://a.example", b = change.otherOrigin
            switch chain {
            case .aToB: return ["\(b)/hop1"]
            case .aToBToB: return ["\(b)/hop1", "\(b)/hop2"]
            case .aToBToA: return ["\(b)/hop1", "\(a)/back"]
            }
        }
    }

    static let credentialNames = ["Authorization", "Cookie", "Proxy-Authorization", "X-Api-Key"]
    static let bodyBytes = Data(#"{"amount":10}"#.utf8)

    static func initialRequest(method: CourierHTTPMethod = .post, url: String = "http://a.example/start") -> CourierHTTPRequest {
        CourierHTTPRequest(
            method: method,
            url: UnitSupport.url(url),
            headers: [
                "Authorization": "Bearer secret",
                "Cookie": "session=1",
                "Proxy-Authorization": "Basic cHJveHk=",
                "X-Api-Key": "key-123",
                "X-Trace": "trace-1",
                "Content-Type": "application/json",
            ],
            body: .data(bodyBytes, contentType: "application/json"),
            sensitiveHeaders: ["x-api-key"]
        )
    }

    @Test("Credentials, method and body along every chain", arguments: [301, 302, 303, 307, 308], Scenario.all)
    func matrix(status: Int, scenario: Scenario) throws {
        let initial = Self.initialRequest()
        var machine = RedirectStateMachine(policy: RedirectPolicy(allowsInsecureRedirects: true), request: initial)
        var current = initial
        let keepsMethod = status == 307 || status == 308

        for (index, location) in scenario.locations.enumerated() {
            let action = try machine.next(status: status, location: location, request: current)
            guard case .follow(let next) = action else {
                Issue.record("hop \(index + 1) to \(location) was not followed")
                return
            }
            let hop = "hop \(index + 1) (\(location))"

            // Credentials: kept only while every hop so far stayed on the first origin.
            let credentialsExpected = scenario.change == .sameOrigin
            for name in Self.credentialNames {
                #expect(next.headers.contains(name) == credentialsExpected, "\(name) after \(hop)")
            }
            #expect(machine.credentialsRemoved == !credentialsExpected, "\(hop)")
            #expect(next.headers["X-Trace"] == "trace-1", "X-Trace after \(hop)")
            if credentialsExpected {
                #expect(next.headers["Authorization"] == "Bearer secret")
                #expect(next.headers["X-Api-Key"] == "key-123")
            }

            // Method and body.
            if keepsMethod {
                #expect(next.method == .post, "\(hop)")
                #expect(next.body?.bytes == Self.bodyBytes, "\(hop)")
                #expect(next.headers["Content-Type"] == "application/json", "\(hop)")
            } else {
                #expect(next.method == .get, "\(hop)")
                #expect(next.body == nil, "\(hop)")
                #expect(!next.headers.contains("Content-Type"), "\(hop)")
            }

            // URL and hop record.
            #expect(next.url.absoluteString == location)
            #expect(machine.hops.count == index + 1)
            #expect(machine.hops.last == RedirectHop(status: status, from: current.url, to: UnitSupport.url(location)))
            #expect(next.id == initial.id)
            current = next
        }
        #expect(machine.hops.map(\.status) == Array(repeating: status, count: scenario.locations.count))
    }

    @Test("Credentials stay removed even when the caller puts them back on a later hop", arguments: [301, 307])
    func credentialsStayRemoved(status: Int) throws {
        let initial = Self.initialRequest(method: .get)
        var machine = RedirectStateMachine(policy: .default, request: initial)
        guard case .follow = try machine.next(status: status, location: "http://b.example/1", request: initial) else {
            Issue.record("first hop not followed")
            return
        }
        // The same credentials again, on a request now at b, redirected within b and then back to a.
        var again = initial
        again.url = UnitSupport.url("http://b.example/1")
        guard case .follow(let second) = try machine.next(status: status, location: "/2", request: again) else {
            Issue.record("second hop not followed")
            return
        }
        again.url = second.url
        guard case .follow(let third) = try machine.next(status: status, location: "http://a.example/start2", request: again) else {
            Issue.record("third hop not followed")
            return
        }
        for name in Self.credentialNames {
            #expect(!second.headers.contains(name), "\(name) on b→b")
            #expect(!third.headers.contains(name), "\(name) back at a")
        }
        #expect(third.headers["X-Trace"] == "trace-1")
    }

    @Test(
        "Origin is scheme, lower-cased host and effective port",
        arguments: [
            ("http://a.example/x", "http://a.example:80/y", true),
            ("https://a.example/x", "https://a.example:443/y", true),
            ("http://a.example/x", "http://A.EXAMPLE/y", true),
            ("http://a.example/x", "http://a.example:81/y", false),
            ("http://a.example/x", "http://sub.a.example/y", false),
            ("http://a.example:443/x", "https://a.example/y", false),
        ]
    )
    func origin(from: String, to: String, sameOrigin: Bool) throws {
        let initial = Self.initialRequest(method: .get, url: from)
        var machine = RedirectStateMachine(policy: .default, request: initial)
        guard case .follow(let next) = try machine.next(status: 302, location: to, request: initial) else {
            Issue.record("not followed")
            return
        }
        #expect(next.headers.contains("Authorization") == sameOrigin)
        #expect(next.headers.contains("Cookie") == sameOrigin)
        #expect(next.headers.contains("X-Api-Key") == sameOrigin)
        #expect(next.headers.contains("X-Trace"))
    }

    @Test("Header names are matched without regard to case when removing credentials")
    func credentialCase() throws {
        var initial = CourierHTTPRequest(
            method: .get, url: UnitSupport.url("http://a.example/"),
            headers: Headers([("authorization", "a"), ("COOKIE", "c"), ("Cookie", "d"), ("x-API-key", "k"), ("X-Custom-Secret", "s"), ("X-Trace", "t")]),
            sensitiveHeaders: ["x-api-key"]
        )
        initial.sensitiveHeaders.insert("x-custom-secret")
        var machine = RedirectStateMachine(policy: .default, request: initial)
        guard case .follow(let next) = try machine.next(status: 307, location: "http://b.example/", request: initial) else {
            Issue.record("not followed")
            return
        }
        #expect(next.headers.pairs.map(\.0) == ["X-Trace"])
    }
}
