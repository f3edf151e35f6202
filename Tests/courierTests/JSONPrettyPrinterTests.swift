import Foundation
import Testing

@testable import courier

@Suite("JSONPrettyPrinter: a re-indenter over the bytes, safe with hostile documents")
struct JSONPrettyPrinterTests {
    private func indented(_ text: String) -> String? {
        JSONPrettyPrinter.styled(Array(text.utf8), indenting: true, colors: false).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test(
        "every value kind, laid out",
        arguments: [
            ("1", "1\n"), ("\"s\"", "\"s\"\n"), ("  null ", "null\n"), ("[]", "[]\n"), ("{ }", "{}\n"),
            ("[1,[2,{}],{\"a\":{\"b\":false}}]", "[\n  1,\n  [\n    2,\n    {}\n  ],\n  {\n    \"a\": {\n      \"b\": false\n    }\n  }\n]\n"),
        ])
    func layouts(input: String, expected: String) {
        #expect(indented(input) == expected)
    }

    @Test("numbers and escapes are kept exactly, however large")
    func exactNumbers() {
        let huge = String(repeating: "9", count: 5000)
        let input = "[\(huge), -0, 1e400, 0.1000000000000000000001, 12E-7, \"\\ud83d\\ude00\\n\\\"\\/\"]"
        let output = indented(input)
        #expect(output == "[\n  \(huge),\n  -0,\n  1e400,\n  0.1000000000000000000001,\n  12E-7,\n  \"\\ud83d\\ude00\\n\\\"\\/\"\n]\n")
    }

    @Test(
        "what is not one JSON text is refused",
        arguments: [
            "", " ", "{", "[1,]", "{\"a\"}", "{\"a\":1,}", "{1:2}", "01", "1.", ".5", "-", "+1", "1e", "tru", "nul", "[1]x", "1 2",
            "\"a\u{01}\"", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"open", "]", "[}", "{]", "'a'", "NaN", "\u{FEFF}1",
        ])
    func invalid(input: String) {
        #expect(indented(input) == nil)
    }

    @Test("invalid UTF-8 is refused")
    func invalidUTF8() {
        #expect(JSONPrettyPrinter.styled([0x22, 0xC3, 0x28, 0x22], indenting: true, colors: false) == nil)
        #expect(JSONPrettyPrinter.styled([0x22, 0xED, 0xA0, 0x80, 0x22], indenting: true, colors: false) == nil)
        #expect(JSONPrettyPrinter.styled([0x22, 0xC3, 0xA9, 0x22], indenting: true, colors: false) == [0x22, 0xC3, 0xA9, 0x22, 0x0A])
    }

    @Test("100,000 levels of nesting: no stack overflow; colours alone lay it out, indentation gives up past its size cap")
    func deepNesting() {
        let depth = 100_000
        let deep = Array(String(repeating: "[", count: depth).utf8) + Array(String(repeating: "]", count: depth).utf8)
        #expect(JSONPrettyPrinter.styled(deep, indenting: true, colors: false) == nil)
        let colored = JSONPrettyPrinter.styled(deep, indenting: false, colors: true)
        #expect(colored == deep)
        let objects = Array((String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
        #expect(JSONPrettyPrinter.styled(objects, indenting: false, colors: false) == objects)
        let unclosed = Array(String(repeating: "[", count: depth).utf8)
        #expect(JSONPrettyPrinter.styled(unclosed, indenting: false, colors: false) == nil)
    }

    @Test("moderate nesting is indented in full")
    func moderateNesting() throws {
        let depth = 300
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let output = try #require(indented(text))
        let lines = output.split(separator: "\n")
        #expect(lines.count == 2 * depth - 1)
        #expect(lines[depth - 1] == Substring(String(repeating: " ", count: 2 * (depth - 1)) + "[]"))
        #expect(lines.last == "]")
    }

    @Test("colours wrap keys, strings, numbers and literals, never punctuation")
    func colours() {
        let output = JSONPrettyPrinter.styled(Array("{\"k\":[\"v\",2,true]}".utf8), indenting: false, colors: true).map { String(decoding: $0, as: UTF8.self) }
        #expect(output == "{\u{1B}[1;34m\"k\"\u{1B}[0m:[\u{1B}[32m\"v\"\u{1B}[0m,\u{1B}[36m2\u{1B}[0m,\u{1B}[35mtrue\u{1B}[0m]}")
    }
}
