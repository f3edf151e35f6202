import Foundation
import PropertyBased
import Testing

@testable import Courier

@Suite("Property: Set-Cookie, the cookie jar and its file")
struct CookiePropertyTests {
    static let samples = [
        "id=a3fWa; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Secure; HttpOnly", "qwerty=219ffwef9w0f; Domain=example.test; Path=/a",
        "sid=1; Max-Age=-1", "x=\"quoted\"; SameSite=Strict; max-age=99999999999999999999", "=novalue", "a=b;;;; path=; domain=.",
        "lang=en-US; Path=/; Domain=.EXAMPLE.test; samesite=lax; Expires=Jun 9 10:18:14 2021",
    ]
    static let alphabet = "=; ExpiresMax-AgeDomainPathSecureHttpOnlySameSite0123456789-:,./"
    static let url = URL(string: "https://www.example.test/a/b")!

    /// A cookie name: a token.
    static let name = Gen<Character?>.element(of: Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~"))
        .map { $0! }.string(of: 1...12)
    /// A cookie value: cookie-octets (RFC 6265 §4.1.1).
    static let value = Gen<UInt8>.value(in: 0x21...0x7E).array(of: 0...24).map { bytes in
        String(decoding: bytes.filter { ![0x22, 0x2C, 0x3B, 0x5C].contains($0) }, as: UTF8.self)
    }

    @Test("Set-Cookie: any field reads without trapping; a cookie read has a name and no control characters")
    func parsesSafely() async {
        await propertyCheck(count: Property.cases(2000), input: Property.hostile(Self.samples, favouring: Self.alphabet)) { text in
            guard let cookie = SetCookie(text) else { return }
            #expect(!cookie.name.isEmpty)
            #expect(cookie.name.utf8.count + cookie.value.utf8.count <= SetCookie.maximumNameAndValueLength)
            #expect(!(cookie.name + cookie.value).utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F })
            #expect(cookie.path.map { $0.hasPrefix("/") } ?? true)
            #expect(cookie.domain.map { !$0.isEmpty && $0 == $0.lowercased() } ?? true)
        }
    }

    @Test("Set-Cookie: a cookie written with any attributes, in any order and case, reads back")
    func roundTrip() async {
        // Max-Age saturates at ±Int64.max, so Int64.min is left out.
        let attributes = zip(
            Gen<Int64>.value(in: DatePropertyTests.firstCookieSecond...DatePropertyTests.lastSecond).optional,
            Property.integer(in: (Int64.min + 1)...Int64.max).optional, zip(Gen<Character>.letterOrNumber.string(of: 1...12), Gen<Bool>.bool).optional,
            Self.value.optional
        )
        let sameSite = Gen<Int>.value(in: 0...3).map { [nil, CourierCookie.SameSite.strict, CourierCookie.SameSite.lax, CourierCookie.SameSite.none][$0] }
        let flags = zip(Gen<Bool>.bool, Gen<Bool>.bool, sameSite, Gen<UInt64>.value())
        await propertyCheck(count: Property.cases(2000), input: Self.name, Self.value, attributes, flags) { name, value, attributes, flags in
            let (expires, maxAge, domain, path) = attributes
            let (secure, httpOnly, sameSite, shuffle) = flags
            var written: [(String, String?)] = []
            if let expires { written.append(("Expires", HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(expires))))) }
            if let maxAge { written.append(("Max-Age", "\(maxAge)")) }
            if let (label, dotted) = domain { written.append(("Domain", "\(dotted ? "." : "")\(label).Example.TEST")) }
            if let path { written.append(("Path", "/\(path)")) }
            if secure { written.append(("Secure", nil)) }
            if httpOnly { written.append(("HttpOnly", nil)) }
            if let sameSite { written.append(("SameSite", sameSite.rawValue.uppercased())) }
            var generator = SplitMix(seed: shuffle)
            written.shuffle(using: &generator)
            let attributeText = written.map { name, value in
                let cased = shuffle % 2 == 0 ? name.lowercased() : name.uppercased()
                return value.map { "\(cased)=\($0)" } ?? cased
            }
            let text = ([" \(name) = \(value) "] + attributeText).joined(separator: shuffle % 3 == 0 ? ";" : "; ")

            let cookie = SetCookie(text)
            #expect(cookie?.name == name && cookie?.value == value, "\(text)")
            #expect(cookie?.expires == expires.map { Date(timeIntervalSince1970: TimeInterval($0)) })
            #expect(cookie?.maxAge == maxAge)
            #expect(cookie?.domain == domain.map { "\($0.0.lowercased()).example.test" })
            #expect(cookie?.path == path.map { "/\($0)" })
            #expect(cookie?.isSecure == secure && cookie?.isHTTPOnly == httpOnly && cookie?.sameSite == sameSite)
        }
    }

    @Test("cookie jar: any field from the network is stored or refused without trapping; a plain cookie comes back in the Cookie header")
    func jar() async {
        let now = Date(timeIntervalSince1970: 1_795_219_200)
        await propertyCheck(count: Property.cases(1000), input: Property.hostile(Self.samples, favouring: Self.alphabet), Self.name, Self.value) { text, name, value in
            let jar = CookieJar(now: { now })
            jar.store(setCookie: text, from: Self.url)
            _ = jar.cookieHeader(for: Self.url)
            jar.store(setCookie: "\(name)=\(value); Path=/", from: Self.url)
            let header = jar.cookieHeader(for: Self.url) ?? ""
            #expect(header.components(separatedBy: "; ").contains("\(name)=\(value)"), "\(header)")
        }
    }

    @Test("cookie file: any contents load as cookies or fail with a cookie storage error; any cookies saved load back the same")
    func file() async throws {
        try await Property.withFolder { folder in try await Self.checkFile(folder.appendingPathComponent("cookies.json")) }
    }

    private static func checkFile(_ file: URL) async throws {
        let valid = [
            #"{"format":1,"cookies":[{"name":"a","value":"b","domain":"example.test","path":"/","isSecure":false,"isHTTPOnly":true,"isHostOnly":true,"created":1700000000,"lastAccessed":1700000001,"expires":1800000000,"sameSite":"lax"}]}"#,
            #"{"format":1,"cookies":[]}"#, #"{"format":2,"cookies":[]}"#,
        ]
        let seconds = Gen<Int64>.value(in: -10_000_000_000...10_000_000_000)
        let cookie = zip(zip(Property.unicode(), Property.unicode(), Property.unicode()), seconds.optional, seconds, Gen<UInt8>.value(in: 0...63))
        await propertyCheck(count: Property.cases(300), input: Property.hostile(valid, favouring: "{}[]\":,0123456789"), cookie.array(of: 0...3)) { text, generated in
            try Data(text.utf8).write(to: file)
            do {
                _ = try CookieFile.load(from: file)
            } catch {
                #expect((error as? CourierError)?.kind == .cookieStorage)
            }
            let cookies = generated.map { strings, expires, created, bits in
                CourierCookie(
                    name: strings.0, value: strings.1, domain: strings.2, path: "/" + strings.1,
                    expires: expires.map { Date(timeIntervalSince1970: TimeInterval($0)) },
                    isSecure: bits & 1 != 0, isHTTPOnly: bits & 2 != 0, isHostOnly: bits & 4 != 0,
                    sameSite: [CourierCookie.SameSite.strict, CourierCookie.SameSite.lax, CourierCookie.SameSite.none, nil][Int(bits >> 4)], created: Date(timeIntervalSince1970: TimeInterval(created))
                )
            }
            try CookieFile.save(cookies, to: file)
            let loaded = try CookieFile.load(from: file)
            #expect(loaded == cookies)
        }
    }
}
