import Foundation

/// The Netscape cookie file curl and wget read and write: one cookie per line, seven fields
/// separated by tabs.
///
/// ```
/// # Netscape HTTP Cookie File
/// .example.com	TRUE	/	FALSE	1830297600	theme	dark
/// #HttpOnly_example.com	FALSE	/account	TRUE	0	session	3f9a
/// ```
///
/// The fields are the domain, whether subdomains get the cookie (`TRUE` or `FALSE`), the path,
/// whether it goes over https only, its expiry in seconds since 1970 (`0` for a session
/// cookie), its name and its value (a line of six fields has an empty value). A line starting
/// with `#` is a comment, except one starting with `#HttpOnly_`, which holds an HttpOnly
/// cookie; blank lines are ignored.
///
/// Reading is meant for files from anywhere: a line that is not a cookie (a missing or extra
/// field, a flag other than `TRUE` or `FALSE`, an expiry that is not a number, a control
/// character, a name or value a `Cookie` header cannot carry, a line longer than
/// ``maximumLineLength``) is skipped, as curl skips it, and an expiry past the year 9999 is
/// lowered to its end.
public enum NetscapeCookieFormat {
    /// The first line of the files this format describes.
    public static let header = "# Netscape HTTP Cookie File"
    /// The longest line read, in bytes; a longer line is skipped.
    public static let maximumLineLength = 8192
    /// The last second of the year 9999: a later expiry is lowered to it.
    static let latestExpiry: Int64 = 253_402_300_799

    /// The cookies `data` holds that have not expired at `now`, in the order of its lines.
    public static func cookies(in data: Data, now: Date = Date()) -> [CourierCookie] {
        var cookies: [CourierCookie] = []
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: true) {
            if let cookie = cookie(in: line, now: now) { cookies.append(cookie) }
        }
        return cookies
    }

    /// The text of a file holding `cookies`, header first. A cookie a line cannot hold (a tab
    /// or another control character in one of its fields) is left out.
    public static func text(for cookies: [CourierCookie]) -> String {
        var text = """
            \(header)
            # Written by Courier. Fields, separated by tabs: domain, subdomains too, path,
            # https only, expiry (seconds since 1970, 0 for a session cookie), name, value.
            # It may hold secrets that sign you in: keep it private.


            """
        for cookie in cookies {
            if let line = line(for: cookie) { text += line + "\n" }
        }
        return text
    }

    /// The line that holds `cookie`, or `nil` when a field has a control character.
    static func line(for cookie: CourierCookie) -> String? {
        let expiry = cookie.expires.map(expirySeconds) ?? 0
        let fields = [
            (cookie.isHostOnly ? "" : ".") + cookie.domain, cookie.isHostOnly ? "FALSE" : "TRUE", cookie.path,
            cookie.isSecure ? "TRUE" : "FALSE", "\(expiry)", cookie.name, cookie.value,
        ]
        guard fields.allSatisfy({ !hasControlCharacters($0.utf8[...]) }) else { return nil }
        return (cookie.isHTTPOnly ? "#HttpOnly_" : "") + fields.joined(separator: "\t")
    }

    /// The expiry field of a persistent cookie: 1 to the end of the year 9999.
    private static func expirySeconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { return seconds < 0 ? 1 : latestExpiry }
        return Int64(min(max(1, seconds), Double(latestExpiry)))
    }

    /// The cookie of one line (without its line feed), or `nil` for a comment, a blank line or
    /// a line that is not a cookie.
    static func cookie(in line: Data, now: Date) -> CourierCookie? {
        var bytes = line
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        guard bytes.count <= maximumLineLength else { return nil }
        bytes = bytes.drop { $0 == 0x20 }
        let httpOnlyPrefix = Array("#HttpOnly_".utf8)
        let isHTTPOnly = bytes.starts(with: httpOnlyPrefix)
        if isHTTPOnly { bytes = bytes.dropFirst(httpOnlyPrefix.count) }
        guard !bytes.isEmpty, isHTTPOnly || bytes.first != UInt8(ascii: "#") else { return nil }
        let fields = bytes.split(separator: 0x09, omittingEmptySubsequences: false)
        guard fields.count == 6 || fields.count == 7, !fields.contains(where: { hasControlCharacters($0) }) else { return nil }
        var field: [String] = []
        for bytes in fields {
            guard let text = String(bytes: bytes, encoding: .utf8) else { return nil }
            field.append(text)
        }
        guard let includesSubdomains = flag(field[1]), let isSecure = flag(field[3]), let domain = domain(field[0]) else { return nil }
        let name = field[5].trimmingCharacters(in: .whitespaces)
        let value = fields.count == 7 ? field[6].trimmingCharacters(in: .whitespaces) : ""
        guard field[2].hasPrefix("/"), !name.isEmpty, !name.contains(where: { $0 == "=" || $0 == ";" }), !value.contains(";"),
            name.utf8.count + value.utf8.count <= SetCookie.maximumNameAndValueLength,
            let expires = expiry(field[4], now: now)
        else { return nil }
        let isHostOnly = !includesSubdomains || CookieTarget.isIPAddress(domain)
        let cookie = CourierCookie(
            name: name, value: value, domain: domain, path: field[2], expires: expires.date, isSecure: isSecure, isHTTPOnly: isHTTPOnly,
            isHostOnly: isHostOnly, created: now
        )
        return CookieStore.prefixRejection(of: cookie) == nil ? cookie : nil
    }

    /// `TRUE` or `FALSE`, in any case.
    private static func flag(_ text: String) -> Bool? {
        switch text.uppercased() {
        case "TRUE": true
        case "FALSE": false
        default: nil
        }
    }

    /// The domain field, lower-cased, without a leading dot or IPv6 brackets; `nil` when
    /// empty or when it has a character no host name has.
    private static func domain(_ text: String) -> String? {
        var domain = text.lowercased()
        if domain.hasPrefix(".") { domain.removeFirst() }
        if domain.hasPrefix("["), domain.hasSuffix("]") { domain = String(domain.dropFirst().dropLast()) }
        let forbidden = Set(" /\\;,=\"'#?@[]".utf8)
        guard !domain.isEmpty, !domain.hasPrefix("."), !domain.utf8.contains(where: forbidden.contains) else { return nil }
        return domain
    }

    /// When a cookie of the file expires.
    private enum Expiry {
        /// With its jar: the field is `0`.
        case session
        /// At this date.
        case at(Date)

        /// The cookie's ``CourierCookie/expires``.
        var date: Date? {
            guard case .at(let date) = self else { return nil }
            return date
        }
    }

    /// The expiry field: a session for `0`, the date for a positive number (at most the end
    /// of the year 9999), `nil` for anything else or a date already past.
    private static func expiry(_ text: String, now: Date) -> Expiry? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        // Digits only: a number too large for Int64 is past the latest expiry anyway.
        let seconds = Int64(text) ?? latestExpiry
        if seconds == 0 { return .session }
        let date = Date(timeIntervalSince1970: TimeInterval(min(seconds, latestExpiry)))
        return date > now ? .at(date) : nil
    }

    /// Whether `bytes` hold a control character: C0 (tab included) or DEL.
    private static func hasControlCharacters(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.contains { $0 < 0x20 || $0 == 0x7F }
    }
}
