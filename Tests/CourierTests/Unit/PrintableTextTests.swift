import Foundation
import Testing

@testable import Courier

@Suite("Printable text: control and bidirectional characters from the network are escaped")
struct PrintableTextTests {
    @Test(
        "each escaped character becomes a visible \\u{HEX}",
        arguments: [
            ("\u{0}", "\\u{0}"),
            ("\u{7}", "\\u{7}"),
            ("\t", "\\u{9}"),
            ("\n", "\\u{A}"),
            ("\r", "\\u{D}"),
            ("\u{1B}[2J", "\\u{1B}[2J"),
            ("\u{7F}", "\\u{7F}"),
            ("\u{80}", "\\u{80}"),
            ("\u{85}", "\\u{85}"),
            ("\u{9B}31m", "\\u{9B}31m"),
            ("\u{9F}", "\\u{9F}"),
            ("\u{61C}", "\\u{61C}"),
            ("\u{200E}\u{200F}", "\\u{200E}\\u{200F}"),
            ("a\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}b", "a\\u{202A}\\u{202B}\\u{202C}\\u{202D}\\u{202E}b"),
            ("\u{2066}\u{2067}\u{2068}\u{2069}", "\\u{2066}\\u{2067}\\u{2068}\\u{2069}"),
            ("\u{2028}\u{2029}", "\\u{2028}\\u{2029}"),
        ])
    func escapes(raw: String, escaped: String) {
        #expect(PrintableText.escaping(raw) == escaped)
        #expect(!PrintableText.escaping(raw).unicodeScalars.contains(where: PrintableText.needsEscaping))
    }

    @Test(
        "text without such characters is unchanged, and escaping twice changes nothing",
        arguments: [
            "plain text", "€ rates — naïve café", "\\u{1B} written by hand", "日本語", "emoji 👩‍👩‍👧 with a joiner", "\u{A0}non-breaking", "\u{A1}",
            "\u{201F}\u{2030}\u{2065}\u{206A}",
        ])
    func keepsOrdinaryText(text: String) {
        #expect(PrintableText.escaping(text) == text)
        let hostile = "a\u{1B}]0;title\u{7}b\u{202E}c" + text
        #expect(PrintableText.escaping(PrintableText.escaping(hostile)) == PrintableText.escaping(hostile))
    }

    @Test("every scalar from U+0000 to U+FFFF is escaped exactly when it is a C0, DEL, C1, bidi control or line separator")
    func exhaustive() {
        let bidi: Set<UInt32> = [0x61C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x2028, 0x2029]
        for value in UInt32(0)...0xFFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let expected = value < 0x20 || (0x7F...0x9F).contains(value) || bidi.contains(value)
            #expect(PrintableText.needsEscaping(scalar) == expected, "U+\(String(value, radix: 16))")
        }
    }

    @Test("in plain ASCII text, each ASCII character is escaped exactly when it is a control, at either end or in the middle")
    func asciiByteByByte() {
        for value in UInt8(0)...0x7F {
            let scalar = Unicode.Scalar(value)
            let raw = String(scalar)
            let expected = PrintableText.needsEscaping(scalar) ? "\\u{\(String(value, radix: 16, uppercase: true))}" : raw
            for (before, after) in [("", ""), ("GET /a", ""), ("", "b c"), ("x-header", "value")] {
                #expect(PrintableText.escaping(before + raw + after) == before + expected + after, "\(value)")
            }
        }
    }

    @Test("a CourierError's message and description never carry a raw control character")
    func errorsAreEscaped() throws {
        var error = CourierError(.validationFailed, "The server answered 404 Not\u{1B}[31mFound\u{202E}", underlyingError: CourierError(.transport, "x\u{9B}y"))
        error.url = URL(string: "http://127.0.0.1/a")
        #expect(error.message == "The server answered 404 Not\\u{1B}[31mFound\\u{202E}")
        #expect(!error.description.unicodeScalars.contains(where: PrintableText.needsEscaping))
        #expect(error.description.contains("x\\u{9B}y"))

        struct Raw: Error, CustomStringConvertible { var description: String { "raw\u{1B}" } }
        let batch = BatchError(index: 0, error: Raw(), results: BatchResults(outcomes: []))
        #expect(batch.description.hasSuffix("raw\\u{1B}"))
    }
}
