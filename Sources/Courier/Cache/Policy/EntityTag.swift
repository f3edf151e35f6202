import Foundation

/// An entity tag (RFC 9110 §8.8.3): an opaque string, marked weak by a `W/` prefix.
struct EntityTag: Sendable, Hashable {
    /// Whether the tag is weak.
    var isWeak: Bool
    /// The opaque part, without quotes.
    var opaque: String

    /// Parses `W/"x"` or `"x"`; a value without quotes is read as a strong tag, as some
    /// servers send it. `nil` for an empty value.
    init?(_ text: String) {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        isWeak = rest.hasPrefix("W/")
        if isWeak { rest = rest.dropFirst(2) }
        if rest.count >= 2, rest.hasPrefix("\""), rest.hasSuffix("\"") { rest = rest.dropFirst().dropLast() }
        guard !rest.isEmpty || text.contains("\"") else { return nil }
        opaque = String(rest)
    }

    /// Strong comparison: both tags strong and their opaque parts equal (RFC 9110 §8.8.3.2).
    func matchesStrongly(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaque == other.opaque
    }

    /// Weak comparison: the opaque parts equal, weak or not.
    func matchesWeakly(_ other: EntityTag) -> Bool {
        opaque == other.opaque
    }
}
