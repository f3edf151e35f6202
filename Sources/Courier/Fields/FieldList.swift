import Foundation

/// The elements of a comma-separated field value (RFC 9110 §5.6.1).
///
/// The value is split at every comma of its Unicode scalars, not of its characters: a
/// character (an extended grapheme cluster) may hold a comma together with a combining mark
/// or a prepended mark next to it, and a server could otherwise hide an element's end inside
/// one. Each element is trimmed of surrounding whitespace; empty elements are dropped.
enum FieldList {
    static func elements(_ value: String) -> [String] {
        value.unicodeScalars.split(separator: ",").compactMap { scalars in
            let element = Substring(scalars).trimmingCharacters(in: .whitespaces)
            return element.isEmpty ? nil : element
        }
    }

    /// The elements of every line of a field, in order.
    static func elements(_ lines: [String]) -> [String] {
        lines.flatMap { elements($0) }
    }

    /// Splits a field value at commas that are not inside a quoted string, reading scalars as
    /// `elements(_:)` does. With `escapes`, a backslash inside a quoted string escapes
    /// the next scalar (RFC 9110 §5.6.4); entity tags have no escapes, and pass `false`.
    static func splitOutsideQuotes(_ value: String, escapes: Bool = true) -> [Substring.UnicodeScalarView] {
        let scalars = value.unicodeScalars
        var pieces: [Substring.UnicodeScalarView] = []
        var start = scalars.startIndex
        var quoted = false
        var escaped = false
        for index in scalars.indices {
            let scalar = scalars[index]
            if escaped {
                escaped = false
            } else if escapes && quoted && scalar == "\\" {
                escaped = true
            } else if scalar == "\"" {
                quoted.toggle()
            } else if scalar == "," && !quoted {
                pieces.append(scalars[start..<index])
                start = scalars.index(after: index)
            }
        }
        pieces.append(scalars[start...])
        return pieces
    }
}
