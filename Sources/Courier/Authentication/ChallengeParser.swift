/// Reads the challenges of one `WWW-Authenticate` field value, by the grammar of RFC 9110
/// §11.2–11.3 and §5.6:
///
/// ```
/// challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
/// auth-param = token BWS "=" BWS ( token / quoted-string )
/// token68    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
/// ```
///
/// Commas separate both the challenges and the parameters of one challenge: an element that
/// reads `token BWS "="` is a parameter of the challenge being read, any other token starts a
/// new challenge. A challenge with a malformed part is dropped whole, and reading resumes at
/// the next comma outside a quoted string, so that one bad challenge does not hide the others.
struct ChallengeParser {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The well-formed challenges, in order.
    mutating func challenges() -> [Challenge] {
        var result: [Challenge] = []
        var current: Challenge?
        var broken = false
        func close() {
            if let current, !broken { result.append(current) }
            current = nil
            broken = false
        }
        while true {
            skip { $0 == UInt8(ascii: ",") || ChallengeParser.isWhitespace($0) }
            guard index < bytes.count else { break }
            guard let name = token() else {
                broken = true
                skipElement()
                continue
            }
            let afterName = index
            skip(ChallengeParser.isWhitespace)
            if peek == UInt8(ascii: "=") {
                // A parameter of the current challenge; a stray one when there is none, or when
                // the challenge has a token68, which takes no parameters.
                if current == nil || current?.token68 != nil {
                    skipElement()
                } else if !readParameter(named: name, into: &current!) {
                    broken = true
                }
                continue
            }
            close()
            current = Challenge(scheme: name)
            index = afterName
            let spaces = skip(ChallengeParser.isWhitespace)
            if atElementEnd() { continue }
            guard spaces > 0 else {
                broken = true
                skipElement()
                continue
            }
            let mark = index
            if let value = token68(), atElementEnd() {
                current!.token68 = value
                continue
            }
            index = mark
            guard let first = token() else {
                broken = true
                skipElement()
                continue
            }
            skip(ChallengeParser.isWhitespace)
            if !readParameter(named: first, into: &current!) { broken = true }
        }
        close()
        return result
    }

    // MARK: Pieces

    /// Reads `"=" BWS value` and the end of the element; on failure skips to the next element.
    private mutating func readParameter(named name: String, into challenge: inout Challenge) -> Bool {
        guard peek == UInt8(ascii: "=") else {
            skipElement()
            return false
        }
        index += 1
        skip(ChallengeParser.isWhitespace)
        guard let value = peek == UInt8(ascii: "\"") ? quotedString() : token(), atElementEnd() else {
            skipElement()
            return false
        }
        let key = name.lowercased()
        if challenge.parameters[key] == nil { challenge.parameters[key] = value }
        return true
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Skips whitespace and says whether the element ends here (a comma or the end).
    private mutating func atElementEnd() -> Bool {
        skip(ChallengeParser.isWhitespace)
        return peek == nil || peek == UInt8(ascii: ",")
    }

    @discardableResult
    private mutating func skip(_ predicate: (UInt8) -> Bool) -> Int {
        let start = index
        while index < bytes.count, predicate(bytes[index]) { index += 1 }
        return index - start
    }

    /// Skips to the next comma that is not inside a quoted string.
    private mutating func skipElement() {
        var quoted = false
        while index < bytes.count {
            let byte = bytes[index]
            if quoted, byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\"") { quoted.toggle() }
            if byte == UInt8(ascii: ","), !quoted { return }
            index += 1
        }
        index = bytes.count
    }

    private mutating func token() -> String? {
        let start = index
        guard skip(WireValidation.isTokenByte) > 0 else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func token68() -> String? {
        let start = index
        guard skip(ChallengeParser.isToken68Byte) > 0 else { return nil }
        skip { $0 == UInt8(ascii: "=") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// Reads a quoted string (RFC 9110 §5.6.4) and returns its unescaped content; `nil` when it
    /// is not closed or holds a control character.
    private mutating func quotedString() -> String? {
        var content: [UInt8] = []
        index += 1
        while index < bytes.count {
            var byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return String(decoding: content, as: UTF8.self) }
            if byte == UInt8(ascii: "\\") {
                guard index < bytes.count else { return nil }
                byte = bytes[index]
                index += 1
            }
            guard byte == 0x09 || (byte >= 0x20 && byte != 0x7F) else { return nil }
            content.append(byte)
        }
        return nil
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == 0x09
    }

    /// Letters, digits and `-._~+/`: the token characters without `!#$%&'*^`|`, plus `/`.
    private static func isToken68Byte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}
