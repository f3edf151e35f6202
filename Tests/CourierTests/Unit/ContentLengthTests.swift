import Testing

@testable import Courier

@Suite("Content-Length, read one way")
struct ContentLengthTests {
    @Test(
        "Digits are a length, with the spaces and tabs around a field value allowed",
        arguments: [
            ("0", 0), ("42", 42), ("007", 7), (" 42", 42), ("42\t", 42), (" \t 42 \t", 42),
            ("9223372036854775807", Int64.max),
        ] as [(String, Int64)]
    )
    func digits(value: String, length: Int64) {
        #expect(ContentLength.parse(value) == length)
    }

    @Test(
        "Anything else declares no length",
        arguments: [
            "", " ", "\t", "+5", "-1", "5,5", "5, 5", "4 2", "0x10", "1e3", "1.0", "٤٢", "42abc", "abc",
            "9223372036854775808", "99999999999999999999", "42\r", "\n42",
        ]
    )
    func notALength(value: String) {
        #expect(ContentLength.parse(value) == nil)
    }

    @Test("Read from a substring as from a string")
    func substring() {
        let field = "Content-Length: 128"
        #expect(ContentLength.parse(field.dropFirst("Content-Length:".count)) == 128)
    }

    @Test("The headers' length is the first Content-Length field, read by the rule")
    func fromHeaders() {
        #expect(Headers().contentLength == nil)
        #expect((["content-length": " 512 "] as Headers).contentLength == 512)
        #expect((["Content-Length": "+512"] as Headers).contentLength == nil)
        var headers = Headers()
        headers.add(name: "Content-Length", value: "10")
        headers.add(name: "Content-Length", value: "20")
        #expect(headers.contentLength == 10)
    }
}
