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
    ///
    /// Read by Unicode scalar: a quote or a separator followed by a combining mark is still a
    /// quote or a separator, though it is not the Character `"` or `;`.
    static func parameters(in value: String) -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        var scalars = Substring(value).unicodeScalars
        // Skip the disposition type.
        guard let firstSemicolon = scalars.firstIndex(of: ";") else { return [] }
        scalars = scalars[scalars.index(after: firstSemicolon)...]
        while !scalars.isEmpty {
            scalars = scalars.drop(while: { $0 == " " || $0 == "\t" })
            guard let equals = scalars.firstIndex(of: "=") else { break }
            let name = Substring(scalars[..<equals]).trimmingCharacters(in: .whitespaces).lowercased()
            scalars = scalars[scalars.index(after: equals)...].drop(while: { $0 == " " || $0 == "\t" })
            var parameterValue = String.UnicodeScalarView()
            if scalars.first == "\"" {
                scalars = scalars.dropFirst()
                var escaped = false
                while let scalar = scalars.first {
                    scalars = scalars.dropFirst()
                    if escaped {
                        parameterValue.append(scalar)
                        escaped = false
                    } else if scalar == "\\" {
                        escaped = true
                    } else if scalar == "\"" {
                        break
                    } else {
                        parameterValue.append(scalar)
                    }
                }
                scalars = scalars.drop(while: { $0 != ";" })
            } else {
                let end = scalars.firstIndex(of: ";") ?? scalars.endIndex
                parameterValue = Substring(scalars[..<end]).trimmingCharacters(in: .whitespaces).unicodeScalars
                scalars = scalars[end...]
            }
            result.append((name, String(parameterValue)))
            if scalars.first == ";" { scalars = scalars.dropFirst() }
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
