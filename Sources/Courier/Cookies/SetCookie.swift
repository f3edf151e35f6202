import Foundation

/// One `Set-Cookie` field, parsed by RFC 6265 §5.2: a name, a value and the attributes
/// Courier understands, with nothing yet decided about where the cookie belongs.
struct SetCookie: Sendable, Hashable {
    /// The longest name plus value kept (RFC 6265bis §5.6); longer cookies are ignored.
    static let maximumNameAndValueLength = 4096
    /// The longest attribute value read; longer attributes are ignored.
    static let maximumAttributeValueLength = 1024

    var name: String
    var value: String
    /// The `Expires` date, when it parsed.
    var expires: Date?
    /// The `Max-Age` seconds, which take precedence over `Expires`.
    var maxAge: Int64?
    /// The `Domain` attribute without its leading dot, lower-cased; `nil` when absent or empty.
    var domain: String?
    /// The `Path` attribute when it starts with `/`.
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite: CourierCookie.SameSite?

    /// Parses one field value; `nil` for a field the algorithm ignores (no `=`, an empty
    /// name, a name or value with control characters, or one too long).
    init?(_ text: String) {
        // Split at the scalars `;` and `=` (a character may join one to a mark beside it).
        let parts = text.unicodeScalars.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        let pair = parts[0]
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        name = SetCookie.trimmed(pair[..<equals])
        value = SetCookie.trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= SetCookie.maximumNameAndValueLength,
            !SetCookie.hasControlCharacters(name), !SetCookie.hasControlCharacters(value)
        else { return nil }
        guard parts.count > 1 else { return }
        for attribute in parts[1].split(separator: ";") {
            let equals = attribute.firstIndex(of: "=")
            let attributeName = SetCookie.trimmed(attribute[..<(equals ?? attribute.endIndex)]).lowercased()
            let attributeValue = equals.map { SetCookie.trimmed(attribute[attribute.index(after: $0)...]) } ?? ""
            guard attributeValue.utf8.count <= SetCookie.maximumAttributeValueLength else { continue }
            read(attributeName, attributeValue)
        }
    }

    /// Applies one attribute; the last of each kind wins.
    private mutating func read(_ attribute: String, _ text: String) {
        switch attribute {
        case "expires":
            if let date = CookieDate.parse(text) { expires = date }
        case "max-age":
            if let seconds = SetCookie.deltaSeconds(text) { maxAge = seconds }
        case "domain":
            var domain = Substring(text)
            if domain.hasPrefix(".") { domain = domain.dropFirst() }
            // An empty Domain is ignored rather than clearing an earlier one (RFC 6265bis §5.6.3).
            if !domain.isEmpty { self.domain = domain.lowercased() }
        case "path":
            path = text.hasPrefix("/") ? text : nil
        case "secure":
            isSecure = true
        case "httponly":
            isHTTPOnly = true
        case "samesite":
            sameSite = CourierCookie.SameSite(rawValue: text.lowercased())
        default:
            break
        }
    }

    /// `Max-Age`: an optional `-` and digits; saturates instead of overflowing.
    private static func deltaSeconds(_ text: String) -> Int64? {
        var digits = Substring(text)
        let negative = digits.hasPrefix("-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let magnitude = Int64(digits) ?? Int64.max
        return negative ? -magnitude : magnitude
    }

    private static let blanks = CharacterSet(charactersIn: " \t")

    /// Removes spaces and tabs at both ends.
    private static func trimmed(_ text: Substring.UnicodeScalarView) -> String {
        Substring(text).trimmingCharacters(in: SetCookie.blanks)
    }

    /// Control characters other than tab (RFC 6265bis §5.6 ignores such cookies).
    private static func hasControlCharacters(_ text: String) -> Bool {
        text.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }
}
