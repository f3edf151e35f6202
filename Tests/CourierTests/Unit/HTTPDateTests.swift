import Foundation
import Testing

@testable import Courier

@Suite("HTTP dates (RFC 9110 §5.6.7)")
struct HTTPDateTests {
    /// 1994-11-06 08:49:37 UTC, the RFC's own example.
    static let example = Date(timeIntervalSince1970: 784_111_777)
    /// A fixed "now" for two-digit years: 2026-11-21.
    static let now = Date(timeIntervalSince1970: 1_795_219_200)

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
    ])
    func theThreeFormatsOfTheRFCExample(text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == Self.example)
    }

    @Test(arguments: [
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0),
        ("Wed, 31 Dec 1969 23:59:59 GMT", -1.0),
        ("Tue, 19 Jan 2038 03:14:08 GMT", 2_147_483_648.0),
        ("Thu, 29 Feb 2024 12:00:00 GMT", 1_709_208_000.0),
        ("Tue, 29 Feb 2000 00:00:00 GMT", 951_782_400.0),
        ("Sat, 31 Dec 2016 23:59:60 GMT", 1_483_228_800.0),
        ("Thu Jan  1 00:00:00 1970", 0.0),
        ("Fri Nov 20 10:00:00 2026", 1_795_168_800.0),
    ])
    func validDates(text: String, seconds: Double) {
        #expect(HTTPDate.parse(text, now: Self.now)?.timeIntervalSince1970 == seconds)
    }

    /// RFC 9111 §4.2: a cache matches dates case-insensitively, although the grammar is not.
    @Test(arguments: [
        "THU, 18 Aug 2050 02:01:18 GMT", "Thu, 18 AUG 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 gMT",
        "thu, 18 aug 2050 02:01:18 gmt", "THURSDAY, 18-AUG-50 02:01:18 GMT", "thursday, 18-aug-50 02:01:18 gmt",
        "THU AUG 18 02:01:18 2050", "thu aug 18 02:01:18 2050",
    ])
    func namesAreReadInAnyCase(text: String) {
        #expect(HTTPDate.parse(text, now: Self.now)?.timeIntervalSince1970 == 2_544_400_878, "\(text)")
    }

    @Test(arguments: [
        ("Sunday, 06-Nov-94 08:49:37 GMT", 1994),
        ("Monday, 06-Nov-26 08:49:37 GMT", 2026),
        ("Friday, 01-Jan-76 00:00:00 GMT", 2076),  // 50 years ahead: still the future reading
        ("Thursday, 01-Jan-77 00:00:00 GMT", 1977),  // more than 50 years ahead: the past
    ])
    func twoDigitYearsAreNeverMoreThan50YearsAhead(text: String, year: Int) throws {
        let date = try #require(HTTPDate.parse(text, now: Self.now))
        #expect(HTTPDate.format(date).contains(" \(year) "))
    }

    @Test(arguments: [
        "",
        "0",
        "-1",
        "yesterday",
        "Sun, 06 Nov 1994 08:49:37 UTC",  // only GMT
        "Thu, 18 Aug 2050 02:01:18 AEST",
        "Thu 18 Aug 2050 02:01:18 GMT",  // no comma
        "Thu, 18  Aug  2050 02:01:18 GMT",  // doubled spaces
        "Thu, 18-Aug-2050 02:01:18 GMT",  // dashes in an IMF-fixdate
        "Thu, 18 Aug 2050 02.01.18 GMT",
        "Thu, 18 Aug 2050 2:01:18 GMT",  // one-digit hour
        "Thu, 18 Aug 50 02:01:18 GMT",  // two-digit year in an IMF-fixdate
        "Thu, 18 Ag 2050 02:01:18 GMT",
        "Thu, 18 Augu 2050 02:01:18 GMT",
        "Thursday, 18-August-50 02:01:18 GMT",
        "Sun, 6 Nov 1994 08:49:37 GMT",  // IMF needs two-digit days
        "Sun,  06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT ",  // trailing space
        " Sun, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49 GMT",
        "Sun, 06 Nov 94 08:49:37 GMT",
        "Sun, 30 Feb 1994 08:49:37 GMT",  // no such day
        "Sun, 29 Feb 2023 08:49:37 GMT",  // not a leap year
        "Sun, 29 Feb 1900 08:49:37 GMT",  // centuries are not leap years…
        "Sun, 31 Apr 1994 08:49:37 GMT",
        "Sun, 00 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 06 Nov 1994 08:49:61 GMT",
        "Sun, 06 Nov 1994 08:49:3a GMT",
        "Sun, 06 Nov +994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 +0000",
        "Sun, 06-Nov-94 08:49:37 GMT",  // RFC 850 needs the long day name
        "Sunday, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sun Nov 6 08:49:37 1994",  // asctime pads the day with a space
        "Sun Nov  6 08:49:37 94",
        "Sun Nov 06 08:49:37 1994 GMT",
        "1994-11-06T08:49:37Z",  // ISO 8601 is not an HTTP date
    ])
    func invalidDatesAreNil(text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == nil, "\(text) should not parse")
    }

    @Test(arguments: [0.0, -1.0, 784_111_777, 951_782_400, 2_147_483_648, 4_102_444_799, -2_208_988_800])
    func formatRoundTrips(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        let text = HTTPDate.format(date)
        #expect(text.count == 29)
        #expect(HTTPDate.parse(text) == date)
    }

    @Test func formatsTheRFCExample() {
        #expect(HTTPDate.format(Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
    }
}
