/// Text from the network made safe to print on a terminal.
///
/// A server chooses reason phrases, header values, redirect targets, challenge realms and file
/// names; printed as they are, an escape sequence among them could move the cursor, rewrite the
/// screen or the window title, and a bidirectional control could make text read in another
/// order than it is. ``escaping(_:)`` replaces each such character with a visible escape in
/// Swift's notation, `\u{1B}`, so that the text stays one readable line. Every
/// ``CourierError`` message and description is escaped this way.
///
/// The characters escaped are the C0 controls (U+0000–U+001F, line breaks and tab included),
/// DEL (U+007F), the C1 controls (U+0080–U+009F), the bidirectional controls (U+061C,
/// U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the line and paragraph separators
/// (U+2028, U+2029). Everything else, a backslash included, is kept as it is.
public enum PrintableText {
    /// Whether ``escaping(_:)`` replaces `scalar`.
    public static func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
        default: false
        }
    }

    /// `text` with every character of ``needsEscaping(_:)`` written as `\u{HEX}` (upper-case
    /// hexadecimal, e.g. `\u{1B}` for ESC); text without any is returned unchanged, so
    /// escaping twice changes nothing.
    public static func escaping(_ text: String) -> String {
        // Printable ASCII, the usual text, is recognised from its bytes and returned as it is.
        var contiguous = text
        if contiguous.withUTF8({ $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }) { return text }
        guard text.unicodeScalars.contains(where: needsEscaping) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if needsEscaping(scalar) {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
