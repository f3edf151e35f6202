import Foundation
import Testing

@testable import Courier

@Suite("PercentEncoding")
struct PercentEncodingTests {
    // MARK: Query components (RFC 3986 unreserved only)

    @Test(
        "Query component encoding",
        arguments: [
            ("abcXYZ019", "abcXYZ019"),
            ("-._~", "-._~"),
            ("a b", "a%20b"),
            ("+", "%2B"),
            ("&", "%26"),
            ("=", "%3D"),
            ("[", "%5B"),
            ("]", "%5D"),
            ("/", "%2F"),
            ("?", "%3F"),
            ("#", "%23"),
            ("%", "%25"),
            ("%20", "%2520"),
            ("é", "%C3%A9"),
            ("café au lait", "caf%C3%A9%20au%20lait"),
            ("😀", "%F0%9F%98%80"),
            ("!$'()*,;:@", "%21%24%27%28%29%2A%2C%3B%3A%40"),
            ("\"<>\\^`{|}", "%22%3C%3E%5C%5E%60%7B%7C%7D"),
            ("\u{7F}", "%7F"),
            ("", ""),
        ]
    )
    func queryComponent(input: String, expected: String) {
        #expect(PercentEncoding.encodeQueryComponent(input) == expected)
    }

    @Test("Every unreserved ASCII byte is kept and every other ASCII byte is escaped in upper-case hex")
    func queryComponentExhaustiveASCII() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        for byte in UInt8(0x20)...UInt8(0x7E) {
            let text = String(UnicodeScalar(byte))
            let expected = unreserved.contains(byte) ? text : "%" + String(format: "%02X", byte)
            #expect(PercentEncoding.encodeQueryComponent(text) == expected, "byte 0x\(String(byte, radix: 16))")
        }
    }

    // MARK: Form components (WHATWG application/x-www-form-urlencoded)

    @Test(
        "Form component encoding",
        arguments: [
            ("a b", "a+b"),
            ("  ", "++"),
            ("*-._", "*-._"),
            ("~", "%7E"),
            ("+", "%2B"),
            ("&=", "%26%3D"),
            ("[]", "%5B%5D"),
            ("/?#", "%2F%3F%23"),
            ("%", "%25"),
            ("!'()", "%21%27%28%29"),
            ("é", "%C3%A9"),
            ("😀", "%F0%9F%98%80"),
            ("Az09", "Az09"),
            ("", ""),
        ]
    )
    func formComponent(input: String, expected: String) {
        #expect(PercentEncoding.encodeFormComponent(input) == expected)
    }

    // MARK: Keeping reserved characters (paths, queries already written by the caller)

    @Test(
        "encodeKeepingReserved keeps valid escapes and escapes stray percent signs",
        arguments: [
            ("/a%2Fb", "/a%2Fb"),
            ("/a%2fb", "/a%2fb"),
            ("/100%", "/100%25"),
            ("%", "%25"),
            ("%zz", "%25zz"),
            ("%2", "%252"),
            ("%2G", "%252G"),
            ("/a%20b", "/a%20b"),
            ("/a b", "/a%20b"),
            ("/é", "/%C3%A9"),
            ("/x:y@z", "/x:y@z"),
            ("/!$&'()*+,;=", "/!$&'()*+,;="),
            ("/a?b#c", "/a%3Fb%23c"),
            ("/[x]", "/%5Bx%5D"),
            ("", ""),
        ]
    )
    func keepingReserved(input: String, expected: String) {
        #expect(PercentEncoding.encodeKeepingReserved(input, extra: ":@/") == expected)
    }

    @Test("The extra set decides which delimiters survive")
    func keepingReservedExtra() {
        #expect(PercentEncoding.encodeKeepingReserved("a?b/c", extra: ":@/?") == "a?b/c")
        #expect(PercentEncoding.encodeKeepingReserved("a?b/c", extra: "") == "a%3Fb%2Fc")
        #expect(PercentEncoding.encodeKeepingReserved("[::1]", extra: ":[]") == "[::1]")
    }

    @Test("A valid escape at the very end of the text is kept")
    func escapeAtEnd() {
        #expect(PercentEncoding.encodeKeepingReserved("a%41", extra: "") == "a%41")
        #expect(PercentEncoding.encodeKeepingReserved("%41", extra: "") == "%41")
    }

    // MARK: Decoding

    @Test(
        "Decoding",
        arguments: [
            ("a%20b", "a b"),
            ("%C3%A9t%C3%A9", "été"),
            ("%c3%a9", "é"),
            ("%F0%9F%98%80", "😀"),
            ("%zz", "%zz"),
            ("%", "%"),
            ("%2", "%2"),
            ("100%", "100%"),
            ("a+b", "a+b"),
            ("%41", "A"),
            ("", ""),
        ]
    )
    func decode(input: String, expected: String) {
        #expect(PercentEncoding.decode(input) == expected)
    }

    @Test(
        "decode(encodeQueryComponent(x)) == x",
        arguments: ["", "plain", "a b+c&d=e", "[x]/y?z#w", "%25 literally", "été 😀 ñ 中文", "~-._", "\u{1}\u{7F}"]
    )
    func roundTripQuery(text: String) {
        #expect(PercentEncoding.decode(PercentEncoding.encodeQueryComponent(text)) == text)
    }

    @Test(
        "Form encoding round trips once + is read back as space",
        arguments: ["", "a b", "a+b", "x*y-z.w_v~u", "été 😀"]
    )
    func roundTripForm(text: String) {
        let encoded = PercentEncoding.encodeFormComponent(text)
        #expect(!encoded.contains(" "))
        let decoded = PercentEncoding.decode(encoded.replacingOccurrences(of: "+", with: " "))
        #expect(decoded == text)
    }

    @Test("Hex digit classification")
    func hexDigits() {
        for byte in "0123456789abcdefABCDEF".utf8 { #expect(PercentEncoding.isHexDigit(byte)) }
        for byte in "gGzZ %-".utf8 { #expect(!PercentEncoding.isHexDigit(byte)) }
    }

    @Test("Sub-delimiters are exactly RFC 3986's eleven, byte by byte")
    func subDelimitersByteByByte() {
        let delimiters = Set("!$&'()*+,;=".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(PercentEncoding.isSubDelimiter(byte) == delimiters.contains(byte), "byte \(byte)")
        }
    }
}
