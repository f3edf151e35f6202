import Foundation
import Testing

@testable import Courier

@Suite("Cache: storing, updating and deciding (RFC 9111 §3, §4)")
struct CacheRulesTests {
    static let url = URL(string: "http://a.test/r")!

    static func request(_ method: CourierHTTPMethod = .get, _ fields: [(String, String)] = []) -> CourierHTTPRequest {
        CourierHTTPRequest(method: method, url: url, headers: Headers(fields))
    }

    /// (method, status, response fields, request fields, storable)
    static let storable: [(CourierHTTPMethod, Int, [(String, String)], [(String, String)], Bool)] = [
        (.get, 200, [], [], true),
        (.head, 200, [("Cache-Control", "max-age=60")], [], false),
        (.post, 200, [("Cache-Control", "max-age=60")], [], false),
        (.get, 201, [], [], false),
        (.get, 201, [("Cache-Control", "max-age=60")], [], true),
        (.get, 500, [("Expires", "Thu, 01 Jan 1970 00:00:00 GMT")], [], true),
        (.get, 500, [("Cache-Control", "s-maxage=60")], [], false),
        (.get, 200, [("Cache-Control", "no-store")], [], false),
        (.get, 200, [("Cache-Control", "no-store, must-understand")], [], true),
        (.get, 299, [("Cache-Control", "no-store, must-understand, max-age=5")], [], false),
        (.get, 200, [("Cache-Control", "private")], [], true),
        (.get, 200, [("Cache-Control", "no-cache")], [], true),
        (.get, 200, [("Vary", "*")], [], false),
        (.get, 200, [], [("Cache-Control", "no-store")], false),
        (.get, 200, [], [("Authorization", "Bearer x")], true),
        (.get, 206, [("Cache-Control", "max-age=60")], [], false),
        (.get, 304, [("Cache-Control", "max-age=60")], [], false),
    ]

    @Test(arguments: storable)
    func storability(method: CourierHTTPMethod, status: Int, response: [(String, String)], request: [(String, String)], storable: Bool) {
        let stored = Storability.canStore(
            status: status, headers: Headers(response), request: Self.request(method, request), fixedLifetime: false
        )
        #expect(stored == storable)
    }

    @Test func aFixedLifetimeStoresSuccessesWhateverTheirFields() {
        let request = Self.request()
        #expect(Storability.canStore(status: 200, headers: ["Cache-Control": "no-store"], request: request, fixedLifetime: true))
        #expect(!Storability.canStore(status: 500, headers: [:], request: request, fixedLifetime: true))
        #expect(!Storability.canStore(status: 200, headers: [:], request: Self.request(.get, [("Cache-Control", "no-store")]), fixedLifetime: true))
    }

    @Test func connectionScopedFieldsAreDropped() {
        let headers = Headers([("Connection", "close, X-Hop"), ("Keep-Alive", "timeout=5"), ("X-Hop", "1"), ("ETag", "\"a\""), ("Transfer-Encoding", "chunked")])
        #expect(Storability.storedHeaders(headers) == ["ETag": "\"a\""])
    }

    @Test func aNotModifiedReplacesFieldsButNotTheBodysLength() {
        let stored = Headers([("Content-Length", "10"), ("ETag", "\"a\""), ("X-A", "1"), ("X-A", "2"), ("Content-Type", "text/plain")])
        let update = Headers([("Content-Length", "0"), ("X-A", "3"), ("Cache-Control", "max-age=9"), ("Connection", "X-B"), ("X-B", "1")])
        let merged = Storability.updatedHeaders(stored, with: update)
        #expect(merged["Content-Length"] == "10")
        #expect(merged.values(for: "X-A") == ["3"])
        #expect(merged["Cache-Control"] == "max-age=9")
        #expect(merged["Content-Type"] == "text/plain")
        #expect(merged["X-B"] == nil)
    }

    static let invalidating: [(CourierHTTPMethod, Int, Bool)] = [
        (.post, 200, true), (.put, 204, true), (.delete, 302, true), (.patch, 200, true),
        (.post, 404, false), (.post, 500, false), (.get, 200, false), (.head, 200, false), (.options, 200, false),
    ]

    @Test(arguments: invalidating)
    func invalidatingResponses(method: CourierHTTPMethod, status: Int, invalidates: Bool) {
        #expect(Storability.invalidates(method: method, status: status) == invalidates)
    }

    @Test func onlySameOriginLocationsAreInvalidated() {
        let headers: Headers = ["Location": "/other", "Content-Location": "https://elsewhere.test/r"]
        let urls = Storability.invalidatedURLs(target: Self.url, headers: headers).map(\.absoluteString)
        #expect(urls == ["http://a.test/r", "http://a.test/other"])
    }

    static func entry(_ fields: [(String, String)], stored: Double = 0) -> CourierCacheEntry {
        let date = Date(timeIntervalSince1970: 1_800_000_000 + stored)
        return CourierCacheEntry(key: "k", variant: "\(stored)", status: 200, headers: Headers(fields), body: Data(), requestDate: date, responseDate: date)
    }

    @Test func aNotModifiedSelectsByStrongThenWeakValidatorThenLastModified() {
        let strong = Self.entry([("ETag", "\"a\"")], stored: 1)
        let weak = Self.entry([("ETag", "W/\"b\"")], stored: 2)
        let dated = Self.entry([("Last-Modified", "Fri, 15 Jan 2027 07:00:00 GMT")], stored: 3)
        let all = [dated, weak, strong]
        #expect(Revalidation.select(for: ["ETag": "\"a\""], among: all, chosen: dated) == strong)
        #expect(Revalidation.select(for: ["ETag": "\"b\""], among: all, chosen: dated) == weak)
        #expect(Revalidation.select(for: ["ETag": "\"c\""], among: all, chosen: dated) == nil)
        #expect(Revalidation.select(for: ["Last-Modified": "Fri, 15 Jan 2027 07:00:00 GMT"], among: all, chosen: strong) == dated)
        #expect(Revalidation.select(for: [:], among: all, chosen: weak) == weak)
    }

    @Test func conditionalRequestsCarryEveryStoredETag() {
        let chosen = Self.entry([("ETag", "\"a\""), ("Last-Modified", "Fri, 15 Jan 2027 07:00:00 GMT")])
        let other = Self.entry([("ETag", "W/\"b\"")])
        let headers = Revalidation.conditionalHeaders(for: chosen, among: [other, chosen])
        #expect(headers["If-None-Match"] == "\"a\", W/\"b\"")
        #expect(headers["If-Modified-Since"] == "Fri, 15 Jan 2027 07:00:00 GMT")
    }

    /// (response fields, lifetime, age, request fields, policy, decision)
    static let decisions: [(String, Double, Double, String, CachePolicy, CacheDecision)] = [
        ("max-age=60", 60.0, 10.0, "", .default, .serve(stale: false)),
        ("max-age=60", 60.0, 70.0, "", .default, .validate),
        ("max-age=60", 60.0, 70.0, "max-stale", .default, .serve(stale: true)),
        ("max-age=60", 60.0, 70.0, "max-stale=5", .default, .validate),
        ("max-age=60, must-revalidate", 60.0, 70.0, "max-stale", .default, .validate),
        ("max-age=60, stale-while-revalidate=30", 60.0, 70.0, "", .default, .serveStaleAndRevalidate),
        ("max-age=60, stale-while-revalidate=5", 60.0, 70.0, "", .default, .validate),
        ("no-cache, max-age=60", 60.0, 0.0, "", .default, .validate),
        ("no-cache=x-a, max-age=60", 60.0, 0.0, "", .default, .serve(stale: false)),
        ("max-age=60", 60.0, 10.0, "no-cache", .default, .validate),
        ("max-age=60, immutable", 60.0, 10.0, "no-cache", .default, .serve(stale: false)),
        ("max-age=60, immutable", 60.0, 70.0, "no-cache", .default, .validate),
        ("max-age=60, immutable", 60.0, 10.0, "max-age=0", .default, .serve(stale: false)),
        ("max-age=60, immutable", 60.0, 10.0, "max-age=5", .default, .serve(stale: false)),
        ("max-age=60, immutable", 60.0, 10.0, "", .noCache, .serve(stale: false)),
        ("max-age=60, immutable", 60.0, 70.0, "max-age=0", .default, .validate),
        ("max-age=60, immutable, must-revalidate", 60.0, 70.0, "max-stale", .default, .validate),
        ("max-age=60", 60.0, 10.0, "", .noCache, .validate),
        ("max-age=60", 60.0, 10.0, "max-age=5", .default, .validate),
        ("max-age=60", 60.0, 10.0, "max-age=10", .default, .serve(stale: false)),
        ("max-age=60", 60.0, 0.0, "max-age=0", .default, .validate),
        ("max-age=60", 60.0, 40.0, "min-fresh=30", .default, .validate),
        ("max-age=60", 60.0, 20.0, "min-fresh=30", .default, .serve(stale: false)),
        ("no-cache, must-revalidate", 0.0, 900.0, "", .returnCacheElseLoad, .serve(stale: true)),
        ("max-age=60", 60.0, 10.0, "", .onlyIfCached, .serve(stale: false)),
    ]

    @Test(arguments: decisions)
    func decision(
        response: String, lifetime: Double, age: Double, request: String, policy: CachePolicy, expected: CacheDecision
    ) {
        var httpRequest = Self.request(.get, request.isEmpty ? [] : [("Cache-Control", request)])
        httpRequest.cachePolicy = policy
        let decision = CacheDecision.decide(
            headers: ["Cache-Control": response], tags: [:], freshness: Freshness(lifetime: lifetime, age: age),
            directives: RequestDirectives(httpRequest), policy: policy
        )
        #expect(decision == expected)
    }

    @Test(arguments: [
        ("max-age=60, stale-if-error=30", "", 80.0, true),
        ("max-age=60, stale-if-error=30", "", 100.0, false),
        ("max-age=60", "stale-if-error=50", 100.0, true),
        ("max-age=60, stale-if-error=30, must-revalidate", "", 80.0, false),
        ("max-age=60", "", 61.0, false),
    ])
    func staleIfError(response: String, request: String, age: Double, allowed: Bool) {
        let directives = RequestDirectives(Self.request(.get, request.isEmpty ? [] : [("Cache-Control", request)]))
        let may = CacheDecision.mayServeOnError(
            entry: Self.entry([("Cache-Control", response)]), freshness: Freshness(lifetime: 60, age: age), directives: directives
        )
        #expect(may == allowed)
    }
}
