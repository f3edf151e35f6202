import Foundation

/// The lenient date parser of cookies (RFC 6265 §5.1.1), for the `Expires` attribute.
///
/// Servers write cookie dates in many shapes (`Wed, 09 Jun 2021 10:18:14 GMT`,
/// `Wednesday, 09-Jun-21 10:18:14 GMT`, `Jun 9 10:18:14 2021`); the algorithm reads the
/// first time, day of month, month and year tokens in whatever order they come, and ignores
/// the rest, the weekday and zone included.
enum CookieDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date `text` names, or `nil` when the algorithm fails.
    static func parse(_ text: String) -> Date? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in tokens(Array(text.utf8)) {
            if time == nil, let found = parseTime(token) {
                time = found
            } else if day == nil, let found = leadingDigits(token, minimum: 1, maximum: 2) {
                day = found
            } else if month == nil, let found = parseMonth(token) {
                month = found
            } else if year == nil, let found = leadingDigits(token, minimum: 2, maximum: 4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.0 <= 23, time.1 <= 59, time.2 <= 59 else { return nil }
        return HTTPDate.date(year: year, month: month, day: day, time: time)
    }

    /// Splits at delimiters: tab, space to `/`, `;` to `@`, `[` to `` ` ``, `{` to `~`.
    private static func tokens(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split { byte in
            byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
                || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `minimum` to `maximum` digits at the start, followed by the end or a non-digit.
    private static func leadingDigits(_ token: ArraySlice<UInt8>, minimum: Int, maximum: Int) -> Int? {
        let digits = token.prefix(while: isDigit)
        guard digits.count >= minimum, digits.count <= maximum else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `h:m:s` with one or two digits each, followed by the end or a non-digit.
    private static func parseTime(_ token: ArraySlice<UInt8>) -> (Int, Int, Int)? {
        var rest = token
        var fields: [Int] = []
        for index in 0..<3 {
            let digits = rest.prefix(while: isDigit)
            guard (1...2).contains(digits.count) else { return nil }
            fields.append(digits.reduce(0) { $0 * 10 + Int($1 - 0x30) })
            rest = rest.dropFirst(digits.count)
            if index < 2 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            }
        }
        return (fields[0], fields[1], fields[2])
    }

    /// A token whose first three letters name a month, compared case-insensitively.
    private static func parseMonth(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = String(decoding: token.prefix(3).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        return months.firstIndex(of: prefix).map { $0 + 1 }
    }
}
