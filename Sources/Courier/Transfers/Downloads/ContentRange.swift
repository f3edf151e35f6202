import Foundation

/// A `Content-Range` value of byte unit (RFC 9110 §14.4): `bytes 0-99/1000`, `bytes 0-99/*`,
/// or `bytes */1000` (the form sent with 416).
struct ContentRange: Equatable {
    /// The first and last byte sent, or `nil` for the unsatisfied form.
    var range: ClosedRange<Int64>?
    /// The complete length, or `nil` when the server sent `*`.
    var total: Int64?

    /// Parses `value`; `nil` when it is not a well-formed byte range.
    init?(_ value: String) {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        if halves[1] == "*" {
            total = nil
        } else {
            guard let length = Self.number(halves[1]) else { return nil }
            total = length
        }
        if halves[0] == "*" {
            guard total != nil else { return nil }
            range = nil
        } else {
            let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last else {
                return nil
            }
            if let total, last >= total { return nil }
            range = first...last
        }
    }

    /// The bytes a `206` with `headers` and a body of `bodyCount` bytes holds, and the complete
    /// length; `nil` unless its `Content-Range` is one range, with the complete length, that
    /// matches the body.
    static func extent(of headers: Headers, bodyCount: Int) -> (held: ClosedRange<Int64>, total: Int64)? {
        guard let contentRange = headers["Content-Range"].flatMap(ContentRange.init), let held = contentRange.range,
            let total = contentRange.total, Int64(bodyCount) == held.count
        else { return nil }
        return (held, total)
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(text)
    }
}
