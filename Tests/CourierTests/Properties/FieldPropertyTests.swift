import Foundation
import PropertyBased
import Testing

@testable import Courier

@Suite("Property: Cache-Control, Age, Vary, Retry-After, ETag and digest fields")
struct FieldPropertyTests {
    static let directiveSamples = [
        "max-age=60", "no-cache, no-store", "private, max-age=0, must-revalidate", "public, s-maxage=3600",
        "no-cache=\"Set-Cookie, X-Id\"", "max-age=\"120\", stale-while-revalidate=30", "MAX-AGE = 5 ,, only-if-cached",
        "ext=\"a\\\"b,c\"; max-age=10",
    ]
    static let directiveAlphabet = "max-age=,\"\\ 0123456789no-cachestoreprivate"

    /// A token (RFC 9110 §5.6.2) of one to twelve characters.
    static let token = Gen<Character?>.element(of: Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~"))
        .map { $0! }.string(of: 1...12)
    /// The content of a quoted string: any printable ASCII, quotes and backslashes included.
    static var quotable: Generator<String, some SendableSequenceType> { Property.printable(upTo: 24) }

    @Test("Cache-Control: any field value reads without trapping; names are lower-cased and trimmed, delta-seconds never negative")
    func cacheControlParsesSafely() async {
        await propertyCheck(count: Property.cases(1500), input: Property.hostile(Self.directiveSamples, favouring: Self.directiveAlphabet)) { text in
            let control = CacheControl(fieldValue: text)
            for directive in control.directives {
                #expect(!directive.name.isEmpty)
                #expect(directive.name == directive.name.lowercased())
                #expect(directive.name == directive.name.trimmingCharacters(in: .whitespaces))
                let seconds = control.seconds(directive.name)
                #expect(seconds.map { (0...CacheControl.maximumDeltaSeconds).contains($0) } == true)
            }
            _ = control.fieldNames("no-cache")
        }
    }

    @Test("Cache-Control: directives written with token or quoted arguments read back as written")
    func cacheControlRoundTrip() async {
        // A token, or any text, which is then written quoted.
        let argument = zip(Gen<Bool>.bool, Self.token, Self.quotable).map { $0.0 ? $0.2 : $0.1 }
        let directive = zip(Self.token, argument.optional, Gen<Bool>.bool)
        await propertyCheck(count: Property.cases(1500), input: directive.array(of: 1...6)) { items in
            var written: [String] = []
            var expected: [CacheControl.Directive] = []
            for (name, value, quoted) in items {
                guard let value else {
                    written.append(name)
                    expected.append(.init(name: name.lowercased(), argument: nil))
                    continue
                }
                let isToken = !value.isEmpty && value.utf8.allSatisfy { WireValidation.isTokenByte($0) }
                written.append(quoted || !isToken ? "\(name)=\(Self.quoted(value))" : "\(name)=\(value)")
                expected.append(.init(name: name.lowercased(), argument: value))
            }
            #expect(CacheControl(fieldValue: written.joined(separator: ", ")).directives == expected)
        }
    }

    @Test("delta-seconds: any number of digits reads as its value, capped at 2^31")
    func deltaSeconds() async {
        await propertyCheck(count: Property.cases(1000), input: Gen<UInt64>.value(), Gen<Int>.value(in: 0...30), Gen<Int>.value(in: 0...40)) { value, zeros, nines in
            let capped = min(value, UInt64(CacheControl.maximumDeltaSeconds))
            let padded = String(repeating: "0", count: zeros) + String(value)
            #expect(CacheControl.deltaSeconds(" \(padded) ") == Int(capped))
            #expect(CacheControl(fieldValue: "max-age=\(padded)").seconds("max-age") == Int(capped))
            let huge = String(value) + String(repeating: "9", count: nines)
            #expect(CacheControl.deltaSeconds(huge).map { $0 >= 0 && $0 <= CacheControl.maximumDeltaSeconds } == true)
            #expect(CacheControl.deltaSeconds("-" + padded) == nil)
        }
    }

    @Test("Age: any field value gives an age that is finite, never negative and at most 2^31 seconds")
    func ageValue() async {
        await propertyCheck(count: Property.cases(1000), input: Property.hostile(["0", "60", "2147483648", "10, 20", " 5 "], favouring: "0123456789 ,-")) { text in
            let age = Freshness.ageValue(Headers([("Age", text)]))
            #expect(age.isFinite && age >= 0 && age <= TimeInterval(CacheControl.maximumDeltaSeconds))
        }
    }

    @Test("Vary: the names read are lower-cased, trimmed, non-empty and each listed once, in order")
    func varyNames() async {
        await propertyCheck(count: Property.cases(1000), input: Self.token.array(of: 0...8), Property.hostile(["Accept-Encoding", "*", "a, B ,,c"], favouring: ", *-")) { names, text in
            var headers = Headers()
            for (index, name) in names.enumerated() { headers.add(name: "Vary", value: index % 3 == 0 ? "\(name) ,  " : name) }
            var expected: [String] = []
            for name in names.map({ $0.lowercased() }) where !expected.contains(name) { expected.append(name) }
            #expect(Storability.varyNames(headers) == expected)

            let read = Storability.varyNames(Headers([("Vary", text), ("vary", text)]))
            #expect(Set(read).count == read.count)
            #expect(read.allSatisfy { !$0.isEmpty && !$0.contains(",") && $0 == $0.lowercased() && $0 == $0.trimmingCharacters(in: .whitespaces) })
        }
    }

    @Test("Retry-After: any value is a delay that is never negative, or nothing; seconds and dates read as written")
    func retryAfter() async {
        let now = Date(timeIntervalSince1970: 1_795_219_200)
        let samples = ["120", "0", " 5 ", "Sun, 06 Nov 1994 08:49:37 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "99999999999999999999"]
        await propertyCheck(count: Property.cases(1000), input: Property.hostile(samples, favouring: "0123456789 ,:GMT"), Gen<Int64>.value(in: 0...Int64.max), Gen<Int64>.value(in: 0...1_000_000_000)) { text, seconds, ahead in
            if let delay = RetryStateMachine.delay(retryAfter: text, now: now) { #expect(delay >= .zero) }
            #expect(RetryStateMachine.delay(retryAfter: String(seconds), now: now) == .seconds(seconds))
            let date = HTTPDate.format(now.addingTimeInterval(TimeInterval(ahead)))
            #expect(RetryStateMachine.delay(retryAfter: date, now: now) == .seconds(ahead))
        }
    }

    @Test("ETag: any value reads without trapping; a written tag, weak or strong, reads back; a 304 selects a stored response only by a matching tag")
    func entityTags() async {
        // etagc: "!" and "#" to "~", and obs-text.
        let opaque = Gen<UInt8>.value(in: 0x21...0x7E).array(of: 0...20).map { String(decoding: $0.filter { $0 != 0x22 }, as: UTF8.self) }
        let samples = ["\"abc\"", "W/\"abc\"", "abc", "\"\"", "W/\"\"", " \"x\" ", "W/", "\"", "*"]
        await propertyCheck(count: Property.cases(1000), input: opaque, Gen<Bool>.bool, Property.hostile(samples, favouring: "W/\"abc ,*")) { text, weak, hostile in
            let written = (weak ? "W/" : "") + "\"\(text)\""
            let tag = EntityTag(written)
            #expect(tag?.isWeak == weak)
            #expect(tag?.opaque == text)

            _ = EntityTag(hostile)
            let stored = [written, hostile, "\"other\"", "W/\(hostile)"].enumerated().map { index, tag in
                Self.entry(index: index, etag: tag)
            }
            let chosen = stored[0]
            let selected = Revalidation.select(for: Headers([("ETag", hostile)]), among: stored, chosen: chosen)
            if let selected, let received = EntityTag(hostile) {
                #expect(stored.contains(selected))
                #expect(EntityTag(selected.headers["ETag"] ?? "")?.matchesWeakly(received) == true)
            }
            let conditional = Revalidation.conditionalHeaders(for: chosen, among: stored)
            #expect(conditional.values(for: "If-None-Match").count == 1)
        }
    }

    @Test("Repr-Digest, Digest and Content-MD5: any value reads without trapping; a written digest reads back")
    func digests() async {
        let samples = ["sha-256=:AAAA:", "md5=AAAA", "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:, md5=x"]
        await propertyCheck(count: Property.cases(1000), input: Gen<UInt8>.value(in: 0...255).array(of: 1...48), Property.hostile(samples, favouring: "sha-256=:md5,+/")) { bytes, hostile in
            let data = Data(bytes)
            let headers = Headers([
                ("Repr-Digest", "sha-256=:\(data.base64EncodedString()):"), ("Digest", "MD5=\(data.base64EncodedString())"),
                ("Repr-Digest", hostile), ("Digest", hostile), ("Content-MD5", hostile),
            ])
            let announced = BodyDigest.announced(in: headers, isWholeFile: true)
            #expect(announced.prefix(1) == [BodyDigest(algorithm: .sha256, expected: data)])
            #expect(announced.contains(BodyDigest(algorithm: .md5, expected: data)))
        }
    }

    // MARK: Helpers

    /// `text` as a quoted string, with `"` and `\` escaped.
    static func quoted(_ text: String) -> String {
        // By scalar, so that a backslash or quote with a combining mark after it is escaped too.
        var result = String.UnicodeScalarView(["\""])
        for scalar in text.unicodeScalars {
            if scalar == "\\" || scalar == "\"" { result.append("\\") }
            result.append(scalar)
        }
        result.append("\"")
        return String(result)
    }

    static func entry(index: Int, etag: String) -> CourierCacheEntry {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        return CourierCacheEntry(
            key: "https://example.test/", variant: "\(index)", status: 200, headers: Headers([("ETag", etag)]), body: Data(),
            requestDate: date, responseDate: date
        )
    }
}
