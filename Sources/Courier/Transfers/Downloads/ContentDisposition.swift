import Foundation

/// Reads the file name a server suggests in `Content-Disposition` (RFC 6266), `filename*`
/// (RFC 8187, UTF-8 or ISO-8859-1, percent-encoded) before `filename`.
///
/// The name is returned as the server sent it, decoded but not made safe:
/// ``DownloadFileName`` does that.
enum ContentDisposition {
    /// The suggested file name, or `nil` when the field names none (or only in a form that
    /// cannot be decoded).
    static func fileName(in value: String) -> String? {
        let parameters = self.parameters(in: value)
        if let extended = parameters.first(where: { $0.name == "filename*" }), let name = decodeExtended(extended.value) {
            return name
        }
        return parameters.first(where: { $0.name == "filename" })?.value
    }

    /// The `name=value` parameters after the disposition type, names lower-cased, quoted
    /// values unquoted.
    static func parameters(in value: String) -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        var characters = Substring(value)
        // Skip the disposition type.
        guard let firstSemicolon = characters.firstIndex(of: ";") else { return [] }
        characters = characters[characters.index(after: firstSemicolon)...]
        while !characters.isEmpty {
            characters = characters.drop(while: { $0 == " " || $0 == "\t" })
            guard let equals = characters.firstIndex(of: "=") else { break }
            let name = characters[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            characters = characters[characters.index(after: equals)...].drop(while: { $0 == " " || $0 == "\t" })
            var parameterValue = ""
            if characters.first == "\"" {
                characters = characters.dropFirst()
                var escaped = false
                while let character = characters.first {
                    characters = characters.dropFirst()
                    if escaped {
                        parameterValue.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        parameterValue.append(character)
                    }
                }
                characters = characters.drop(while: { $0 != ";" })
            } else {
                let end = characters.firstIndex(of: ";") ?? characters.endIndex
                parameterValue = characters[..<end].trimmingCharacters(in: .whitespaces)
                characters = characters[end...]
            }
            result.append((name, parameterValue))
            if characters.first == ";" { characters = characters.dropFirst() }
        }
        return result
    }

    /// Decodes `charset'language'percent-encoded` (RFC 8187 §3.2).
    static func decodeExtended(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var bytes: [UInt8] = []
        var encoded = Array(parts[2].utf8)[...]
        while let byte = encoded.first {
            encoded = encoded.dropFirst()
            if byte == UInt8(ascii: "%") {
                guard encoded.count >= 2, let high = hexValue(encoded[encoded.startIndex]),
                    let low = hexValue(encoded[encoded.startIndex + 1])
                else { return nil }
                bytes.append(high << 4 | low)
                encoded = encoded.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        switch parts[0].lowercased() {
        case "utf-8": return String(bytes: bytes, encoding: .utf8)
        case "iso-8859-1": return String(bytes.map { Character(Unicode.Scalar($0)) })
        default: return nil
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
