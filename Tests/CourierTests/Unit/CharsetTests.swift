import Foundation
import Testing

@testable import Courier

@Suite("Response text and charsets")
struct CharsetTests {
    private func response(_ contentType: String?, _ bytes: [UInt8]) -> CourierResponse {
        var headers = Headers()
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        return CourierResponse(status: 200, headers: headers, body: Data(bytes), url: UnitSupport.url("https://example.com/t"))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var label: String
        var contentType: String?
        var bytes: [UInt8]
        var expected: String
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "iso-8859-1", contentType: "text/plain; charset=iso-8859-1", bytes: [0xE9, 0x74, 0xE9], expected: "été"),
        Case(label: "latin1 alias", contentType: "text/plain; charset=latin1", bytes: [0x63, 0x61, 0x66, 0xE9], expected: "café"),
        Case(label: "windows-1252 euro", contentType: "text/plain; charset=windows-1252", bytes: [0x80, 0x20, 0x35], expected: "€ 5"),
        Case(label: "windows-1252 quotes", contentType: "text/plain; charset=windows-1252", bytes: [0x93, 0x61, 0x94], expected: "\u{201C}a\u{201D}"),
        Case(label: "utf-16le without BOM", contentType: "text/plain; charset=utf-16le", bytes: [0x68, 0x00, 0xE9, 0x00, 0xAC, 0x20], expected: "hé€"),
        Case(label: "utf-16be without BOM", contentType: "text/plain; charset=utf-16be", bytes: [0x00, 0x68, 0x00, 0xE9], expected: "hé"),
        Case(label: "quoted utf-8", contentType: "text/plain; charset=\"utf-8\"", bytes: [0xC3, 0xA9, 0x74, 0xC3, 0xA9], expected: "été"),
        Case(label: "upper-case UTF-8", contentType: "text/plain; charset=UTF-8", bytes: [0xC3, 0xA9], expected: "é"),
        Case(label: "charset not first parameter, spaces", contentType: "text/plain;format=flowed ;  CharSet = ISO-8859-1", bytes: [0xE9], expected: "é"),
        Case(label: "no charset, valid UTF-8", contentType: "text/plain", bytes: [0xC3, 0xA9, 0x74, 0xC3, 0xA9], expected: "été"),
        Case(label: "no Content-Type, valid UTF-8", contentType: nil, bytes: Array("naïve 😀".utf8), expected: "naïve 😀"),
        Case(label: "no charset, invalid UTF-8 → Latin-1", contentType: "text/plain", bytes: [0xE9, 0x74, 0xE9], expected: "été"),
        Case(label: "no Content-Type, invalid UTF-8 → Latin-1", contentType: nil, bytes: [0x41, 0xFF, 0x80], expected: "A\u{FF}\u{80}"),
        Case(label: "unknown charset, valid UTF-8", contentType: "text/plain; charset=x-klingon", bytes: [0xC3, 0xA9], expected: "é"),
        Case(label: "unknown charset, invalid UTF-8", contentType: "text/plain; charset=x-klingon", bytes: [0xE9, 0x74, 0xE9], expected: "été"),
        Case(label: "declared utf-8 that is not UTF-8 → Latin-1", contentType: "text/plain; charset=utf-8", bytes: [0xE9, 0x74, 0xE9], expected: "été"),
        Case(label: "declared us-ascii holding UTF-8 → UTF-8", contentType: "text/plain; charset=us-ascii", bytes: [0xC3, 0xA9], expected: "é"),
        Case(label: "empty body", contentType: "text/plain; charset=utf-8", bytes: [], expected: ""),
        Case(label: "empty charset value", contentType: "text/plain; charset=", bytes: [0xC3, 0xA9], expected: "é"),
    ]

    @Test("text() decodes by the declared charset, then UTF-8, then Latin-1", arguments: cases)
    func text(_ testCase: Case) {
        #expect(response(testCase.contentType, testCase.bytes).text() == testCase.expected)
    }

    @Test(
        "charset is read from Content-Type, lower-cased and unquoted",
        arguments: [
            ("text/html; charset=UTF-8", "utf-8"),
            ("text/html; charset=\"ISO-8859-1\"", "iso-8859-1"),
            ("text/html; charset='windows-1252'", "windows-1252"),
            ("text/html;charset=utf-16le", "utf-16le"),
            ("text/html; format=flowed; charset=latin1", "latin1"),
        ]
    )
    func charset(contentType: String, expected: String) {
        #expect(response(contentType, []).charset == expected)
    }

    @Test("No charset parameter, or no Content-Type, gives nil")
    func noCharset() {
        #expect(response("text/html", []).charset == nil)
        #expect(response("text/html; format=flowed", []).charset == nil)
        #expect(response(nil, []).charset == nil)
        #expect(response("charset=utf-8", []).charset == nil)
    }

    @Test(
        "Charset names map to Foundation encodings",
        arguments: [
            ("utf-8", String.Encoding.utf8), ("utf8", .utf8), ("us-ascii", .ascii), ("iso-8859-1", .isoLatin1),
            ("latin1", .isoLatin1), ("windows-1252", .windowsCP1252), ("cp1252", .windowsCP1252),
            ("utf-16le", .utf16LittleEndian), ("utf-16be", .utf16BigEndian), ("shift_jis", .shiftJIS),
        ]
    )
    func encodingNames(name: String, expected: String.Encoding) {
        #expect(CourierResponse.encoding(forCharset: name) == expected)
    }

    @Test("Unknown charset names map to nil")
    func unknownEncodingName() {
        #expect(CourierResponse.encoding(forCharset: "x-klingon") == nil)
        #expect(CourierResponse.encoding(forCharset: "") == nil)
    }

    @Test("mediaType is lower-cased without parameters")
    func mediaType() {
        #expect(response("Application/JSON; charset=utf-8", []).mediaType == "application/json")
        #expect(response(" text/html ", []).mediaType == "text/html")
        #expect(response("", []).mediaType == nil)
        #expect(response(nil, []).mediaType == nil)
    }

    @Test("isSuccess is exactly 2xx", arguments: [(199, false), (200, true), (204, true), (299, true), (300, false), (404, false)])
    func isSuccess(status: Int, expected: Bool) {
        #expect(UnitSupport.response(status: status).isSuccess == expected)
    }
}
