import Foundation

/// The directives of the `Cache-Control` fields of a request or response (RFC 9111 §5.2).
///
/// Every field line is read, in order; names are compared without regard to case. An argument
/// may be a token or a quoted string (with `\` escapes). When a directive appears more than
/// once, the first occurrence counts. A delta-seconds argument that is not a non-negative
/// integer reads as `0`, the most restrictive reading; one too large to represent reads as
/// 2147483648 seconds (RFC 9111 §1.2.2).
struct CacheControl: Sendable, Hashable {
    /// One directive: its lower-cased name and its argument, unquoted, if it has one.
    struct Directive: Sendable, Hashable {
        var name: String
        var argument: String?
    }

    /// The largest delta-seconds value a cache needs to tell apart (RFC 9111 §1.2.2).
    static let maximumDeltaSeconds = 2_147_483_648

    /// The directives, in the order they appear.
    var directives: [Directive]

    /// The directives of every `Cache-Control` field in `headers`.
    init(_ headers: Headers) {
        let values = headers.values(for: "Cache-Control")
        self.init(fieldValue: values.isEmpty ? nil : values.joined(separator: ","))
    }

    /// The directives of one field value; none for `nil`, a missing field.
    init(fieldValue: String?) {
        directives = fieldValue.map { FieldList.splitOutsideQuotes($0).compactMap(CacheControl.directive) } ?? []
    }

    /// Whether the field is present at all.
    var isEmpty: Bool { directives.isEmpty }

    /// Whether the directive `name` is present.
    func contains(_ name: String) -> Bool {
        directives.contains { $0.name == name }
    }

    /// The first occurrence of `name`.
    func first(_ name: String) -> Directive? {
        directives.first { $0.name == name }
    }

    /// The delta-seconds argument of `name`: `nil` when the directive is absent, `0` when its
    /// argument is missing or invalid.
    func seconds(_ name: String) -> Int? {
        guard let directive = first(name) else { return nil }
        return CacheControl.deltaSeconds(directive.argument ?? "") ?? 0
    }

    /// The field names listed in the argument of `name` (`no-cache="Set-Cookie, X-Id"`),
    /// lower-cased; `nil` when the directive is absent or has no argument.
    func fieldNames(_ name: String) -> [String]? {
        guard let argument = first(name)?.argument else { return nil }
        return FieldList.elements(argument).map { $0.lowercased() }
    }

    /// Reads delta-seconds (RFC 9111 §1.2.2): digits only; capped at ``maximumDeltaSeconds``.
    static func deltaSeconds(_ text: String) -> Int? {
        let digits = text.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        let significant = digits.drop { $0 == "0" }
        guard significant.count <= 10, let value = Int(significant.isEmpty ? "0" : String(significant)) else {
            return maximumDeltaSeconds
        }
        return min(value, maximumDeltaSeconds)
    }

    /// One `name[=argument]` item; `nil` when it has no name.
    private static func directive(_ item: Substring.UnicodeScalarView) -> Directive? {
        let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = Substring(parts[0]).trimmingCharacters(in: .whitespaces).lowercased()
        guard !name.isEmpty else { return nil }
        guard parts.count == 2 else { return Directive(name: name, argument: nil) }
        return Directive(name: name, argument: unquote(Substring(parts[1]).trimmingCharacters(in: .whitespaces)))
    }

    /// A quoted string without its quotes and escapes; a token as it is.
    private static func unquote(_ text: String) -> String {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return text }
        var result = ""
        var escaped = false
        for character in text.dropFirst().dropLast() {
            if !escaped && character == "\\" {
                escaped = true
                continue
            }
            escaped = false
            result.append(character)
        }
        return result
    }
}

/// The cache directives of a request: its `Cache-Control`, or `Pragma: no-cache` when it has
/// no `Cache-Control` (RFC 9111 §5.4), together with the request's ``CachePolicy``.
struct RequestDirectives: Sendable {
    /// The request's `Cache-Control`.
    var control: CacheControl
    /// Whether the request asks for a response validated by the origin.
    var noCache: Bool
    /// Whether nothing of this exchange may be stored.
    var noStore: Bool
    /// Whether only a stored response may answer.
    var onlyIfCached: Bool

    /// The directives of `request`.
    init(_ request: CourierHTTPRequest) {
        control = CacheControl(request.headers)
        let pragma =
            control.isEmpty
            && request.headers.values(for: "Pragma").contains { $0.lowercased().contains("no-cache") }
        noCache =
            control.contains("no-cache") || pragma
            || request.cachePolicy == .noCache || request.cachePolicy == .cachedThenFresh
        noStore = control.contains("no-store") || request.cachePolicy == .noStore
        onlyIfCached = control.contains("only-if-cached")
    }
}
