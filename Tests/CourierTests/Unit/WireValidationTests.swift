import Foundation
import Testing

@testable import Courier

@Suite("WireValidation")
struct WireValidationTests {
    private func headerError(_ name: String, _ value: String) -> CourierError? {
        UnitSupport.error { try WireValidation.validate(Headers([(name, value)])) }
    }

    // MARK: Header names

    @Test(
        "Bad header names are refused",
        arguments: ["X-A\r", "X-A\n", "X\r\nInjected", "X-A\0", "", "X A", "X-A:", "X:A", " X", "X\t", "Ä", "X(1)", "X\"", "X@Y"]
    )
    func badNames(name: String) throws {
        let error = try #require(headerError(name, "v"))
        #expect(error.kind == .invalidHeader)
        #expect(error.message.contains(WireValidation.quoted(name)))
    }

    @Test(
        "Token header names pass",
        arguments: ["X-Trace", "content-type", "X_Under", "A!#$%&'*+-.^_`|~9", "x"]
    )
    func goodNames(name: String) {
        #expect(headerError(name, "v") == nil)
    }

    @Test("Every byte is a token byte exactly when RFC 9110 lists it as tchar")
    func tokenBytesAreTheTcharSet() {
        let tchar = Set("!#$%&'*+-.^_`|~".utf8).union(UInt8(ascii: "a")...UInt8(ascii: "z"))
            .union(UInt8(ascii: "A")...UInt8(ascii: "Z")).union(UInt8(ascii: "0")...UInt8(ascii: "9"))
        #expect(tchar.count == 77)
        for byte in UInt8.min...UInt8.max {
            #expect(WireValidation.isTokenByte(byte) == tchar.contains(byte), "byte 0x\(String(byte, radix: 16))")
        }
    }

    @Test("A name or value that is not a native string is checked the same way")
    func bridgedStrings() {
        // Substring-built and NSString-bridged text may have no contiguous UTF-8 storage.
        let name = String(NSString(string: "X-Bridged"))
        let bad = String(NSString(string: "a\r\nb"))
        #expect(headerError(name, "v") == nil)
        #expect(headerError("X-Value", bad)?.kind == .invalidHeader)
        #expect(headerError(String(NSString(string: "X A")), "v")?.kind == .invalidHeader)
    }

    // MARK: Header values

    @Test(
        "Control characters in values are refused",
        arguments: [
            ("a\rb", "0xD"),
            ("a\nb", "0xA"),
            ("a\r\nX-Injected: 1", "0xD"),
            ("a\0b", "0x0"),
            ("\u{1}", "0x1"),
            ("a\u{7F}", "0x7F"),
            ("\n", "0xA"),
        ]
    )
    func badValues(value: String, byteText: String) throws {
        let error = try #require(headerError("X-Value", value))
        #expect(error.kind == .invalidHeader)
        #expect(error.message.contains(#""X-Value""#))
        #expect(error.message.contains(byteText))
        #expect(!error.description.contains("\r"))
        #expect(!error.description.contains("\n"))
    }

    @Test(
        "Legal values pass: HTAB, SP, visible ASCII, obs-text, empty",
        arguments: ["a\tb", "\t", "a b", "", "!~\"(),/:;<=>?@[\\]{}", "café", "😀", "Bearer abc.def-ghi"]
    )
    func goodValues(value: String) {
        #expect(headerError("X-Value", value) == nil)
    }

    @Test("The first bad field of a list is reported")
    func firstBadField() throws {
        let headers = Headers([("Good", "1"), ("Bad-Value", "x\ny"), ("Bad Name", "z")])
        let error = try #require(UnitSupport.error { try WireValidation.validate(headers) })
        #expect(error.message.contains(#""Bad-Value""#))
        #expect(WireValidation.quoted("Bad-Value") == #""Bad-Value""#)
        #expect(UnitSupport.error { try WireValidation.validate(Headers()) } == nil)
    }

    // MARK: Methods

    @Test(
        "Token methods pass",
        arguments: ["GET", "POST", "PROPFIND", "M-SEARCH", "get", "X_CUSTOM.1", "A!#$%&'*+-.^_`|~"]
    )
    func goodMethods(name: String) {
        #expect(UnitSupport.error { try WireValidation.validateMethod(CourierHTTPMethod(name)) } == nil)
    }

    @Test(
        "Non-token methods are refused with invalidMethod",
        arguments: ["GE T", "GET\r\n", "", "G\0ET", "GET\n", "GET\t", "GÉT", "GET /x HTTP/1.1", "G:T", "(GET)"]
    )
    func badMethods(name: String) throws {
        let error = try #require(UnitSupport.error { try WireValidation.validateMethod(CourierHTTPMethod(name)) })
        #expect(error.kind == .invalidMethod)
        #expect(error.message.contains(WireValidation.quoted(name)))
    }

    // MARK: Visible escapes

    @Test("The description shows CR LF as a visible \\r\\n escape for a method")
    func methodDescriptionEscapes() throws {
        let error = try #require(UnitSupport.error { try WireValidation.validateMethod("GET\r\n") })
        #expect(error.description.contains(#""GET\r\n""#))
        #expect(!error.description.contains("\r"))
        #expect(!error.description.contains("\n"))
        #expect(error.description.hasPrefix("invalidMethod: "))
    }

    @Test("The description shows CR LF as a visible \\r\\n escape for a header name")
    func headerNameDescriptionEscapes() throws {
        let error = try #require(headerError("X-A\r\nInjected", "v"))
        #expect(error.description.contains(#""X-A\r\nInjected""#))
        #expect(!error.description.contains("\r"))
        #expect(!error.description.contains("\n"))
        #expect(error.description.hasPrefix("invalidHeader: "))
    }

    @Test(
        "quoted makes control characters visible",
        arguments: [
            ("a\r\nb", #""a\r\nb""#),
            ("\0", #""\0""#),
            ("say \"hi\"", #""say \"hi\"""#),
            ("\t", #""\u{9}""#),
            ("\u{7F}", #""\u{7f}""#),
            ("é😀", "\"é😀\""),
            ("", "\"\""),
        ]
    )
    func quoted(input: String, expected: String) {
        #expect(WireValidation.quoted(input) == expected)
    }
}
