import Foundation

/// Parses and formats HTTP dates (RFC 9110 §5.6.7), as used by `Date`, `Expires`,
/// `Last-Modified`, `If-Modified-Since` and `Retry-After`.
///
/// Parsing accepts the three formats a recipient must understand and nothing else, and returns
/// `nil` for anything that is not a valid date, so that callers can apply HTTP's rule that an
/// invalid date means "already expired". The one leniency is case: the grammar is
/// case-sensitive, but RFC 9111 §4.2 asks caches to match dates case-insensitively, so
/// `THU, 18 AUG 2050 02:01:18 gmt` is read as `Thu, 18 Aug 2050 02:01:18 GMT`. Every other
/// departure (another zone, a missing comma, a doubled space, a one-digit hour, a two-digit year
/// in an IMF-fixdate) is still no date.
///
/// | format | example |
/// |---|---|
/// | IMF-fixdate (preferred) | `Sun, 06 Nov 1994 08:49:37 GMT` |
/// | RFC 850 (obsolete) | `Sunday, 06-Nov-94 08:49:37 GMT` |
/// | asctime (obsolete) | `Sun Nov  6 08:49:37 1994` |
///
/// A two-digit RFC 850 year is read, as RFC 9110 prescribes, as the most recent year with
/// those last two digits that is not more than 50 years in the future.
public enum HTTPDate {
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let gmt = ["GMT"]

    /// Parses an HTTP date; `nil` when `text` is not one.
    ///
    /// - Parameters:
    ///   - text: a field value in any of the three formats of RFC 9110 §5.6.7.
    ///   - now: the present, used only to place two-digit RFC 850 years.
    public static func parse(_ text: String, now: Date = Date()) -> Date? {
        let bytes = Array(text.utf8)
        return parseIMF(bytes) ?? parseRFC850(bytes, now: now) ?? parseAsctime(bytes)
    }

    /// Formats a date as an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let dayCount = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - dayCount * 86_400
        let (year, month, day) = civil(fromDays: dayCount)
        let weekday = ((dayCount % 7) + 7 + 3) % 7  // 1970-01-01 was a Thursday (index 3)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        // The grammar's year has four digits: year 999 is 0999.
        let fourDigitYear = year >= 0 && year < 1000 ? String(repeating: "0", count: 4 - "\(year)".count) + "\(year)" : "\(year)"
        return "\(days[weekday]), \(two(day)) \(months[month - 1]) \(fourDigitYear) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    // MARK: - Formats

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func parseIMF(_ b: [UInt8]) -> Date? {
        guard b.count == 29, let _ = name(b[0..<3], in: days), b[3] == comma, b[4] == space,
            let day = number(b[5..<7]), b[7] == space, let month = name(b[8..<11], in: months), b[11] == space,
            let year = number(b[12..<16]), b[16] == space, let time = time(b[17..<25]),
            b[25] == space, name(b[26..<29], in: gmt) != nil
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    private static func parseRFC850(_ b: [UInt8], now: Date) -> Date? {
        guard let comma = b.firstIndex(of: comma), name(b[0..<comma], in: longDays) != nil,
            b.count == comma + 24
        else { return nil }
        let rest = Array(b[(comma + 1)...])
        guard rest[0] == space, let day = number(rest[1..<3]), rest[3] == dash,
            let month = name(rest[4..<7], in: months), rest[7] == dash, let shortYear = number(rest[8..<10]),
            rest[10] == space, let time = time(rest[11..<19]), rest[19] == space, name(rest[20..<23], in: gmt) != nil
        else { return nil }
        return date(year: fullYear(shortYear, now: now), month: month + 1, day: day, time: time)
    }

    /// `Sun Nov  6 08:49:37 1994` (a one-digit day is padded with a space).
    private static func parseAsctime(_ b: [UInt8]) -> Date? {
        guard b.count == 24, name(b[0..<3], in: days) != nil, b[3] == space,
            let month = name(b[4..<7], in: months), b[7] == space
        else { return nil }
        let dayBytes = b[8] == space ? b[9..<10] : b[8..<10]
        guard let day = number(dayBytes), b[10] == space, let time = time(b[11..<19]), b[19] == space,
            let year = number(b[20..<24])
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    // MARK: - Pieces

    private static let space = UInt8(ascii: " "), comma = UInt8(ascii: ","), dash = UInt8(ascii: "-")

    /// The index of `bytes` in `names`, compared without regard to ASCII case (RFC 9111 §4.2).
    private static func name(_ bytes: ArraySlice<UInt8>, in names: [String]) -> Int? {
        names.firstIndex { name in
            name.utf8.count == bytes.count && zip(name.utf8, bytes).allSatisfy { lowercase($0) == lowercase($1) }
        }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// Decimal digits only.
    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// `HH:MM:SS`; a leap second (60) is accepted as RFC 5322 allows.
    private static func time(_ b: ArraySlice<UInt8>) -> (Int, Int, Int)? {
        let b = Array(b)
        guard b.count == 8, b[2] == UInt8(ascii: ":"), b[5] == UInt8(ascii: ":"),
            let hour = number(b[0..<2]), let minute = number(b[3..<5]), let second = number(b[6..<8]),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        return (hour, minute, second)
    }

    private static func fullYear(_ twoDigits: Int, now: Date) -> Int {
        let currentYear = civil(fromDays: Int(now.timeIntervalSince1970 / 86_400)).year
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 }
        return year
    }

    /// The UTC instant of a calendar date and time; `nil` for a day the month does not have.
    static func date(year: Int, month: Int, day: Int, time: (Int, Int, Int)) -> Date? {
        guard year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        let seconds = days(fromYear: year, month: month, day: day) * 86_400 + time.0 * 3600 + time.1 * 60 + time.2
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func days(fromYear year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of ``days(fromYear:month:day:)``.
    private static func civil(fromDays count: Int) -> (year: Int, month: Int, day: Int) {
        let z = count + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
