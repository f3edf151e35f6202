import Courier

extension JSONPrettyPrinter {
    /// Whether `bytes` are well-formed UTF-8 (JSON's encoding): anything else is printed as it came.
    static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Reads the string that starts at the current quote and writes it with its escapes as
    /// sent, and the characters that could drive a terminal as `\uXXXX`; `false` when it is
    /// not a valid JSON string (a raw control character, a bad escape, no closing quote).
    /// The input is known to be valid UTF-8.
    mutating func string(color: String) -> Bool {
        var text: [UInt8] = [UInt8(ascii: "\"")]
        var position = index + 1
        while position < input.count {
            let byte = input[position]
            switch byte {
            case UInt8(ascii: "\""):
                text.append(byte)
                index = position + 1
                paint(text[...], color)
                return true
            case UInt8(ascii: "\\"):
                guard let length = escapeLength(at: position) else { return false }
                text.append(contentsOf: input[position..<(position + length)])
                position += length
            case 0x00..<0x20:
                return false
            case 0x20..<0x7F:
                text.append(byte)
                position += 1
            default:
                let length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
                let sequence = input[position..<min(position + length, input.count)]
                if let scalar = Self.scalar(sequence), PrintableText.needsEscaping(scalar) {
                    // Every character escaped is in the Basic Multilingual Plane: four digits.
                    let digits = String(scalar.value, radix: 16, uppercase: true)
                    text.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits).utf8)
                } else {
                    text.append(contentsOf: sequence)
                }
                position += length
            }
        }
        return false
    }

    /// The length of the escape at `position` (`\n`, `\u00E9`), or `nil` when it is not one.
    private func escapeLength(at position: Int) -> Int? {
        guard position + 1 < input.count else { return nil }
        switch input[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return 2
        case UInt8(ascii: "u"):
            guard position + 6 <= input.count, input[(position + 2)..<(position + 6)].allSatisfy(Self.isHexDigit) else { return nil }
            return 6
        default:
            return nil
        }
    }

    /// Reads the number at the current position (RFC 8259's grammar) and writes it as sent;
    /// `false` when it is not a number.
    mutating func number() -> Bool {
        var position = index
        if input[position] == UInt8(ascii: "-") { position += 1 }
        guard position < input.count, Self.isDigit(input[position]) else { return false }
        if input[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            position = digits(from: position)
        }
        if position < input.count, input[position] == UInt8(ascii: ".") {
            guard position + 1 < input.count, Self.isDigit(input[position + 1]) else { return false }
            position = digits(from: position + 1)
        }
        if position < input.count, input[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < input.count, input[position] == UInt8(ascii: "+") || input[position] == UInt8(ascii: "-") { position += 1 }
            guard position < input.count, Self.isDigit(input[position]) else { return false }
            position = digits(from: position)
        }
        paint(input[index..<position], TerminalColors.number)
        index = position
        return true
    }

    /// The position after the run of digits that starts at `position`.
    private func digits(from position: Int) -> Int {
        var position = position
        while position < input.count, Self.isDigit(input[position]) { position += 1 }
        return position
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// The scalar a whole UTF-8 sequence encodes.
    private static func scalar(_ sequence: ArraySlice<UInt8>) -> Unicode.Scalar? {
        var decoder = UTF8()
        var iterator = sequence.makeIterator()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) { return scalar }
        return nil
    }
}
