/// Lays out a JSON document for a terminal: indented by two spaces, one member or element per
/// line (or with its whitespace as sent), optionally coloured, with the keys in the order sent
/// and every number and string kept exactly as the server wrote it (`1.0E+2` stays `1.0E+2`,
/// `"\u00e9"` stays `"\u00e9"`).
///
/// It reads the bytes once, with an explicit stack of open containers instead of recursion, so
/// a document nested a million levels deep costs memory, not stack. Anything that is not one
/// valid JSON text in UTF-8 gives `nil`, and the caller prints the body as it came; so does an
/// output that would grow past ``maximumOutputBytes`` (deep nesting makes indentation grow with
/// the square of the depth).
///
/// Inside strings, the characters that could drive a terminal (`PrintableText.needsEscaping`:
/// C0 and C1 controls, DEL, bidirectional controls, line and paragraph separators) are
/// written as JSON escapes (`\u202E`), which mean the same text; a raw control byte is not
/// valid JSON in the first place. Colours go around the escaped text only.
struct JSONPrettyPrinter {
    /// The largest output produced; past it, the document is left as it came.
    static let maximumOutputBytes = 32 << 20

    /// `bytes` laid out, or `nil` when they are not a JSON text or the layout would be too
    /// large.
    ///
    /// - Parameters:
    ///   - indenting: indent by two spaces, one member or element per line, and end with a
    ///     line break; without it, the whitespace between tokens is kept as sent.
    ///   - colors: wrap keys, strings, numbers and literals in ANSI colours.
    static func styled(_ bytes: [UInt8], indenting: Bool, colors: Bool) -> [UInt8]? {
        guard isValidUTF8(bytes) else { return nil }
        var printer = JSONPrettyPrinter(input: bytes, indenting: indenting, colors: colors)
        return printer.run() ? printer.output : nil
    }

    private enum Container {
        case object
        case array
    }

    private enum Expectation {
        case value
        case key
        case colon
        case commaOrClose
        case end
    }

    let input: [UInt8]
    private let indenting: Bool
    private let colors: Bool
    var index = 0
    private var output: [UInt8] = []
    private var open: [Container] = []
    private var expected = Expectation.value

    private init(input: [UInt8], indenting: Bool, colors: Bool) {
        self.input = input
        self.indenting = indenting
        self.colors = colors
        output.reserveCapacity(input.count * 2 + 16)
    }

    /// Lays out the whole input; `false` when it is not valid JSON or grew too large.
    private mutating func run() -> Bool {
        while true {
            skipWhitespace()
            guard index < input.count else { break }
            guard step(input[index]), output.count <= Self.maximumOutputBytes else { return false }
        }
        guard expected == .end else { return false }
        if indenting { output.append(UInt8(ascii: "\n")) }
        return true
    }

    /// Reads the token that starts with `byte`; `false` when it cannot come here.
    private mutating func step(_ byte: UInt8) -> Bool {
        switch expected {
        case .end:
            return false
        case .colon:
            guard byte == UInt8(ascii: ":") else { return false }
            index += 1
            output.append(UInt8(ascii: ":"))
            if indenting { output.append(UInt8(ascii: " ")) }
            expected = .value
            return true
        case .key:
            guard byte == UInt8(ascii: "\"") else { return false }
            guard string(color: TerminalColors.key) else { return false }
            expected = .colon
            return true
        case .commaOrClose:
            return commaOrClose(byte)
        case .value:
            return value(byte)
        }
    }

    private mutating func value(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "{"): return openContainer(.object)
        case UInt8(ascii: "["): return openContainer(.array)
        case UInt8(ascii: "\""): guard string(color: TerminalColors.string) else { return false }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): guard number() else { return false }
        case UInt8(ascii: "t"): guard literal("true") else { return false }
        case UInt8(ascii: "f"): guard literal("false") else { return false }
        case UInt8(ascii: "n"): guard literal("null") else { return false }
        default: return false
        }
        finishValue()
        return true
    }

    private mutating func openContainer(_ container: Container) -> Bool {
        let (opening, closing) = container == .object ? (UInt8(ascii: "{"), UInt8(ascii: "}")) : (UInt8(ascii: "["), UInt8(ascii: "]"))
        index += 1
        output.append(opening)
        skipWhitespace()
        if index < input.count, input[index] == closing {
            // Empty: `{}` or `[]` on one line.
            index += 1
            output.append(closing)
            finishValue()
            return true
        }
        open.append(container)
        newLine()
        expected = container == .object ? .key : .value
        return true
    }

    private mutating func commaOrClose(_ byte: UInt8) -> Bool {
        guard let container = open.last else { return false }
        if byte == UInt8(ascii: ",") {
            index += 1
            output.append(byte)
            newLine()
            expected = container == .object ? .key : .value
            return true
        }
        guard byte == (container == .object ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
        index += 1
        open.removeLast()
        newLine()
        output.append(byte)
        finishValue()
        return true
    }

    /// After a whole value: a comma or the end of its container, or the end of the text.
    private mutating func finishValue() {
        expected = open.isEmpty ? .end : .commaOrClose
    }

    private mutating func newLine() {
        guard indenting else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * open.count))
    }

    /// Skips the whitespace at the current position; keeps it when not indenting.
    private mutating func skipWhitespace() {
        while index < input.count, input[index] == 0x20 || input[index] == 0x0A || input[index] == 0x0D || input[index] == 0x09 {
            if !indenting { output.append(input[index]) }
            index += 1
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let bytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard input.count - index >= bytes.count, input[index..<(index + bytes.count)].elementsEqual(bytes) else { return false }
        paint(input[index..<(index + bytes.count)], TerminalColors.literal)
        index += bytes.count
        return true
    }

    /// Writes `bytes`, between `color` and the reset when colouring.
    mutating func paint(_ bytes: ArraySlice<UInt8>, _ color: String) {
        if colors { output.append(contentsOf: color.utf8) }
        output.append(contentsOf: bytes)
        if colors { output.append(contentsOf: TerminalColors.reset.utf8) }
    }
}
