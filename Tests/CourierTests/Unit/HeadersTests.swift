import Foundation
import Testing

@testable import Courier

@Suite("Headers")
struct HeadersTests {
    private func names(_ headers: Headers) -> [String] { headers.map(\.name) }
    private func values(_ headers: Headers) -> [String] { headers.map(\.value) }

    @Test(
        "Lookups ignore ASCII case",
        arguments: ["Content-Type", "content-type", "CONTENT-TYPE", "cOnTeNt-TyPe"]
    )
    func caseInsensitiveSubscript(name: String) {
        let headers: Headers = ["Content-Type": "application/json", "Accept": "*/*"]
        #expect(headers[name] == "application/json")
        #expect(headers.contains(name))
        #expect(headers.values(for: name) == ["application/json"])
    }

    @Test("Names that only look alike are different names")
    func lookAlikes() {
        let headers: Headers = ["X-A": "1", "X_A": "2", "X@": "3"]
        #expect(headers["x-a"] == "1")
        #expect(headers["x_a"] == "2")
        #expect(headers["X`"] == nil)  // '`' is '@' | 0x20 but not a letter
        #expect(headers["X-AB"] == nil)
        #expect(headers["X-"] == nil)
        #expect(headers["Missing"] == nil)
        #expect(!headers.contains("Missing"))
        #expect(Headers.same("Ä", "ä") == false)  // only ASCII folds
        #expect(Headers.same("ETag", "etag"))
    }

    @Test("Names match as RFC 9110 says: ASCII letters in either case, every other byte as is, short and long names alike")
    func namesMatchByteByByte() {
        func folded(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }
        var mismatches: [String] = []
        for p in UInt8(0)...255 {
            for q in UInt8(0)...255 {
                // A short name and one past the length a string keeps inline.
                for padding in ["", String(repeating: "x", count: 40)] {
                    let a = String(decoding: Array(padding.utf8) + [p], as: UTF8.self)
                    let b = String(decoding: Array(padding.uppercased().utf8) + [q], as: UTF8.self)
                    // A byte past ASCII is not valid UTF-8 alone and decodes as U+FFFD.
                    let expected = a.utf8.map(folded) == b.utf8.map(folded)
                    if Headers.same(a, b) != expected { mismatches.append("\(p) \(q) +\(padding.count)") }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        #expect(!Headers.same("Accept-Encoding", "Accept-Encodinh"))
        #expect(!Headers.same("Content-Type", "Content-Typ"))
    }

    @Test("Several values for one name keep their order; the subscript gives the first")
    func multipleValues() {
        var headers = Headers()
        headers.add(name: "Set-Cookie", value: "a=1")
        headers.add(name: "X-Other", value: "x")
        headers.add(name: "set-cookie", value: "b=2")
        headers.add(name: "SET-COOKIE", value: "c=3")
        #expect(headers["Set-Cookie"] == "a=1")
        #expect(headers.values(for: "set-cookie") == ["a=1", "b=2", "c=3"])
        #expect(headers.count == 4)
        #expect(names(headers) == ["Set-Cookie", "X-Other", "set-cookie", "SET-COOKIE"])
    }

    @Test("set replaces every value and the new field takes the place of the first")
    func set() {
        var headers = Headers([("A", "1"), ("Accept", "x"), ("B", "2"), ("accept", "y"), ("C", "3"), ("ACCEPT", "z")])
        headers.set(name: "Accept", value: "application/json")
        #expect(headers.pairs.map { "\($0.0): \($0.1)" } == ["A: 1", "Accept: application/json", "B: 2", "C: 3"])
        #expect(headers.values(for: "accept") == ["application/json"])
    }

    @Test("set on a missing name appends")
    func setAppends() {
        var headers: Headers = ["A": "1"]
        headers.set(name: "B", value: "2")
        #expect(names(headers) == ["A", "B"])
        #expect(values(headers) == ["1", "2"])
    }

    @Test("set uses the new spelling of the name")
    func setSpelling() {
        var headers: Headers = ["content-type": "text/plain"]
        headers.set(name: "Content-Type", value: "text/html")
        #expect(names(headers) == ["Content-Type"])
        #expect(headers["CONTENT-TYPE"] == "text/html")
    }

    @Test("remove removes every field of that name, whatever its case")
    func remove() {
        var headers = Headers([("Cookie", "a"), ("X", "1"), ("cookie", "b"), ("COOKIE", "c"), ("Y", "2")])
        headers.remove(name: "cOOkie")
        #expect(names(headers) == ["X", "Y"])
        #expect(!headers.contains("cookie"))
        headers.remove(name: "absent")
        #expect(headers.count == 2)
    }

    @Test("addMissing adds only names that are not present, in order")
    func addMissing() {
        var headers: Headers = ["Accept": "text/html", "X-Mine": "1"]
        let defaults: Headers = ["accept": "*/*", "User-Agent": "Courier", "X-Default": "d"]
        headers.addMissing(from: defaults)
        #expect(
            headers.pairs.map { "\($0.0): \($0.1)" } == [
                "Accept: text/html", "X-Mine: 1", "User-Agent: Courier", "X-Default: d",
            ])
    }

    @Test("addMissing keeps every value of a multi-valued default header that was absent")
    func addMissingMultiValued() {
        var headers: Headers = ["X-Mine": "1"]
        let defaults = Headers([("Accept-Language", "en"), ("Accept-Language", "fr"), ("Accept", "*/*"), ("X-Mine", "default")])
        headers.addMissing(from: defaults)
        #expect(headers.values(for: "Accept-Language") == ["en", "fr"])
        #expect(headers.values(for: "X-Mine") == ["1"])
        #expect(headers.values(for: "Accept") == ["*/*"])
    }

    @Test("A dictionary literal keeps the literal's order, duplicates included")
    func literalOrder() {
        let headers: Headers = ["Z": "1", "A": "2", "M": "3", "a": "4"]
        #expect(names(headers) == ["Z", "A", "M", "a"])
        #expect(values(headers) == ["1", "2", "3", "4"])
        #expect(headers.values(for: "a") == ["2", "4"])
    }

    @Test("Equality compares fields in order")
    func equality() {
        let a: Headers = ["A": "1", "B": "2"]
        #expect(a == Headers([("A", "1"), ("B", "2")]))
        #expect(a != ["B": "2", "A": "1"])
        #expect(a != ["A": "1", "B": "3"])
        #expect(a != ["A": "1"])
        #expect(Headers() == [:])
        #expect(Set([a, Headers([("A", "1"), ("B", "2")])]).count == 1)
    }

    @Test("count, isEmpty, pairs and description")
    func basics() {
        var headers = Headers()
        #expect(headers.isEmpty)
        #expect(headers.count == 0)
        headers.add(name: "A", value: "1")
        headers.add(name: "B", value: "x y")
        #expect(!headers.isEmpty)
        #expect(headers.count == 2)
        #expect(headers.pairs.map(\.0) == ["A", "B"])
        #expect(headers.description == "A: 1\nB: x y")
    }

    @Test("redactedHeaders hides credentials and the request's sensitive headers only")
    func redacted() {
        let request = CourierHTTPRequest(
            method: .get, url: UnitSupport.url("https://example.com"),
            headers: ["Authorization": "Bearer t", "cookie": "c", "Proxy-Authorization": "p", "X-Api-Key": "k", "X-Trace": "t"],
            sensitiveHeaders: ["x-api-key"]
        )
        #expect(
            request.redactedHeaders.pairs.map { "\($0.0): \($0.1)" } == [
                "Authorization: <redacted>", "cookie: <redacted>", "Proxy-Authorization: <redacted>",
                "X-Api-Key: <redacted>", "X-Trace: t",
            ])
        #expect(request.isSensitive("AUTHORIZATION"))
        #expect(request.isSensitive("X-API-KEY"))
        #expect(!request.isSensitive("X-Trace"))
    }
}
