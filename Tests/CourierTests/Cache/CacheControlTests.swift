import Foundation
import Testing

@testable import Courier

@Suite("Cache: Cache-Control parsing")
struct CacheControlTests {
    @Test(arguments: [
        ("max-age=60", "max-age", 60),
        ("MAX-AGE=60", "max-age", 60),
        ("max-age=\"60\"", "max-age", 60),
        ("public, max-age=60, max-age=10", "max-age", 60),
        ("max-age=abc", "max-age", 0),
        ("max-age=-5", "max-age", 0),
        ("max-age=", "max-age", 0),
        ("max-age", "max-age", 0),
        ("max-age=99999999999999999999", "max-age", 2_147_483_648),
        ("  no-cache ,max-age = 7", "max-age", 7),
    ])
    func deltaSeconds(field: String, name: String, seconds: Int) {
        #expect(CacheControl(fieldValue: field).seconds(name) == seconds)
    }

    @Test func absentDirectivesHaveNoValue() {
        let control = CacheControl(fieldValue: "public")
        #expect(control.seconds("max-age") == nil)
        #expect(control.contains("public"))
        #expect(!control.contains("private"))
    }

    @Test func quotedStringsMayHoldCommasAndEscapes() {
        let control = CacheControl(fieldValue: #"private="Set-Cookie, X-Id", ext="a\"b,c", no-store"#)
        #expect(control.fieldNames("private") == ["set-cookie", "x-id"])
        #expect(control.first("ext")?.argument == #"a"b,c"#)
        #expect(control.contains("no-store"))
        #expect(control.directives.count == 3)
    }

    @Test func everyFieldLineIsRead() {
        let control = CacheControl(Headers([("Cache-Control", "max-age=5"), ("cache-control", "must-revalidate")]))
        #expect(control.seconds("max-age") == 5)
        #expect(control.contains("must-revalidate"))
    }

    @Test func bareNoCacheHasNoFieldNames() {
        #expect(CacheControl(fieldValue: "no-cache").fieldNames("no-cache") == nil)
        #expect(CacheControl(fieldValue: "no-cache=X-Token").fieldNames("no-cache") == ["x-token"])
    }

    @Test(arguments: [
        (Headers([("Pragma", "no-cache")]), true),
        (Headers([("Pragma", "no-cache"), ("Cache-Control", "max-stale")]), false),
        (Headers([("Cache-Control", "no-cache")]), true),
        (Headers(), false),
    ])
    func pragmaCountsOnlyWithoutCacheControl(headers: Headers, noCache: Bool) {
        let request = CourierHTTPRequest(method: .get, url: URL(string: "http://a.test/")!, headers: headers)
        #expect(RequestDirectives(request).noCache == noCache)
    }
}

@Suite("Cache: entity tags and Vary")
struct EntityTagAndVaryTests {
    @Test(arguments: [
        ("\"1\"", "\"1\"", true, true),
        ("W/\"1\"", "W/\"1\"", false, true),
        ("W/\"1\"", "\"1\"", false, true),
        ("\"1\"", "\"2\"", false, false),
        ("W/\"1\"", "W/\"2\"", false, false),
    ])
    func strongAndWeakComparison(a: String, b: String, strong: Bool, weak: Bool) throws {
        let first = try #require(EntityTag(a)), second = try #require(EntityTag(b))
        #expect(first.matchesStrongly(second) == strong)
        #expect(first.matchesWeakly(second) == weak)
    }

    @Test func theVariantKeyNormalisesTheListedFields() {
        let response: Headers = ["Vary": "Accept-Language, accept-encoding"]
        let a = CacheKey.variant(request: ["Accept-Language": "en,  fr", "Accept-Encoding": "gzip"], response: response)
        let b = CacheKey.variant(request: Headers([("accept-encoding", "gzip"), ("Accept-Language", "en"), ("Accept-Language", "fr")]), response: response)
        #expect(a != nil)
        #expect(a == b)
        #expect(a != CacheKey.variant(request: ["Accept-Language": "en"], response: response))
        #expect(CacheKey.variant(request: [:], response: [:]) == "")
    }

    @Test func varyStarHasNoVariant() {
        #expect(CacheKey.variant(request: [:], response: ["Vary": "Accept, *"]) == nil)
    }

    @Test func credentialPartitionsHoldNoSecret() {
        let url = URL(string: "https://a.test/x#frag")!
        let key = CacheKey.primary(for: url, identity: "password:ada:s3cret")
        #expect(!key.contains("s3cret"))
        #expect(!key.contains("#frag"))
        #expect(key != CacheKey.primary(for: url, identity: "password:bob:s3cret"))
        #expect(CacheKey.primary(for: url, identity: nil) == "https://a.test/x")
    }
}
