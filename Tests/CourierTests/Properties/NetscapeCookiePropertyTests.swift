import Foundation
import PropertyBased
import Testing

@testable import Courier

@Suite("Property: the Netscape cookie file")
struct NetscapeCookiePropertyTests {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let samples = [
        ".example.com\tTRUE\t/\tFALSE\t0\tname\tvalue", "#HttpOnly_example.com\tFALSE\t/a\tTRUE\t1830297600\tsid\t3f9a",
        "example.com\tFALSE\t/\tFALSE\t99999999999999999999\tlong\tlived", "127.0.0.1\tFALSE\t/\tFALSE\t0\tempty",
        "# Netscape HTTP Cookie File", "[::1]\tFALSE\t/\tFALSE\t0\tv6\t1",
    ]

    @Test("any file reads without trapping; every cookie read is one a Cookie header can carry and has not expired")
    func parsesSafely() async {
        let lines = Property.hostile(Self.samples, favouring: "\t.#TRUEFALSE/0123456789=;_HttpOnly").array(of: 0...6)
        await propertyCheck(count: Property.cases(2000), input: lines) { lines in
            let data = Data(lines.joined(separator: "\n").utf8)
            for cookie in NetscapeCookieFormat.cookies(in: data, now: Self.now) {
                let text = cookie.name + cookie.value + cookie.domain + cookie.path
                #expect(!text.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "\(cookie)")
                #expect(!cookie.name.isEmpty && !cookie.name.contains("=") && !cookie.name.contains(";") && !cookie.value.contains(";"))
                #expect(cookie.path.hasPrefix("/") && !cookie.domain.isEmpty && cookie.domain == cookie.domain.lowercased())
                #expect(cookie.expires.map { $0 > Self.now && $0.timeIntervalSince1970 <= 253_402_300_799 } ?? true)
                #expect(NetscapeCookieFormat.line(for: cookie) != nil, "a cookie read can be written back")
            }
        }
    }

    @Test("any cookie a line can hold is written and read back the same, session cookies included")
    func roundTrip() async {
        let token = Gen<Character?>.element(of: Array("abcdefghijklmnopqrstuvwxyz0123456789-_!$%&'*+.^`|~")).map { $0! }.string(of: 1...12)
        let value = Gen<UInt8>.value(in: 0x21...0x7E).array(of: 0...24).map { bytes in
            String(decoding: bytes.filter { $0 != UInt8(ascii: ";") }, as: UTF8.self)
        }
        let domain = Gen<Character?>.element(of: Array("abcxyz019-")).map { $0! }.string(of: 1...10).map { "\($0).example.test" }
        let expiry = Gen<Int64>.value(in: 1_767_225_601...300_000_000_000).optional
        let flags = Gen<UInt8>.value(in: 0...7)
        await propertyCheck(count: Property.cases(1000), input: zip(token, value, domain, token), expiry, flags) { strings, expires, bits in
            let (name, value, domain, path) = strings
            let cookie = CourierCookie(
                name: "n" + name, value: value, domain: domain, path: "/" + path,
                expires: expires.map { Date(timeIntervalSince1970: TimeInterval(min($0, NetscapeCookieFormat.latestExpiry))) },
                isSecure: bits & 1 != 0, isHTTPOnly: bits & 2 != 0, isHostOnly: bits & 4 != 0, created: Self.now
            )
            let read = NetscapeCookieFormat.cookies(in: Data(NetscapeCookieFormat.text(for: [cookie]).utf8), now: Self.now)
            #expect(read == [cookie])
        }
    }
}
