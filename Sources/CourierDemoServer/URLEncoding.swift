import Foundation

/// Percent-decoding, query-string and base64 helpers used by the test server.
enum URLEncoding {
    /// Decodes `%XX` escapes (RFC 3986). Malformed escapes are kept literally.
    ///
    /// - Parameter plusAsSpace: whether `+` means a space (HTML form encoding) or a literal `+` (RFC 3986).
    static func percentDecode(_ text: Substring, plusAsSpace: Bool = false) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` escapes (RFC 3986), `+` kept literally.
    static func percentDecode(_ text: String) -> String {
        self.percentDecode(text[...])
    }

    /// Splits `name=value&name2=value2` into decoded pairs, in order. Empty components are skipped;
    /// a component without `=` has an empty value.
    static func parsePairs(_ text: Substring, plusAsSpace: Bool) -> [(String, String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { component in
            if let equals = component.firstIndex(of: "=") {
                return (
                    self.percentDecode(component[..<equals], plusAsSpace: plusAsSpace),
                    self.percentDecode(component[component.index(after: equals)...], plusAsSpace: plusAsSpace)
                )
            }
            return (self.percentDecode(component, plusAsSpace: plusAsSpace), "")
        }
    }

    /// Decodes standard or URL-safe base64, with or without padding. Returns `nil` if `text` is not base64.
    static func base64Decode(_ text: String) -> [UInt8]? {
        var normalized = String(
            text.map { character -> Character in
                switch character {
                case "-": return "+"
                case "_": return "/"
                default: return character
                }
            }
        )
        normalized = normalized.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        let remainder = normalized.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { normalized += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: normalized).map { Array($0) }
    }

    /// Standard base64 with padding.
    static func base64Encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// `bytes` as a UTF-8 string, or as an httpbin-style `data:` URL when they are not valid UTF-8.
    static func textOrDataURL(_ bytes: [UInt8], contentType: String = "application/octet-stream") -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.utf8.elementsEqual(bytes) {
            return text
        }
        return "data:\(contentType);base64,\(self.base64Encode(bytes))"
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
