import Foundation
import PropertyBased
import Testing

@testable import Courier

@Suite("Property: HTTP and cookie dates")
struct DatePropertyTests {
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the instants a four-digit year can name.
    static let firstSecond: Int64 = -62_135_596_800
    static let lastSecond: Int64 = 253_402_300_799
    /// 1601-01-01T00:00:00Z, the earliest year a cookie date may have (RFC 6265 §5.1.1).
    static let firstCookieSecond: Int64 = -11_644_473_600
    /// A fixed present for two-digit years: 2026-11-21.
    static let now = Date(timeIntervalSince1970: 1_795_219_200)

    static let samples = [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        "Thu, 29 Feb 2024 23:59:60 GMT", "Wed, 09 Jun 2021 10:18:14 GMT", "Jun 9 10:18:14 2021",
        "Mon, 01 Jan 0001 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
    ]
    static let alphabet = "0123456789 ,:-GMTSunMonTueWedThuFriSatJanFebMarAprMayJunJulAugSepOctNovDec"

    /// Whole seconds whose year has four digits.
    static let anySecond = Gen<Int64>.value(in: firstSecond...lastSecond)

    @Test("HTTP date: any input parses or not, and what parses is a date with a four-digit year that formats and parses to itself")
    func httpDateParsesSafely() async {
        await propertyCheck(count: Property.cases(1500), input: Property.hostile(Self.samples, favouring: Self.alphabet)) { text in
            guard let date = HTTPDate.parse(text, now: Self.now) else { return }
            let seconds = date.timeIntervalSince1970
            #expect(seconds >= Double(Self.firstSecond) && seconds <= Double(Self.lastSecond) + 1)
            #expect(HTTPDate.parse(HTTPDate.format(date), now: Self.now) == date)
        }
    }

    @Test("HTTP date: format then parse gives the same instant for any second of years 1 to 9999")
    func httpDateRoundTrip() async {
        await propertyCheck(count: Property.cases(1500), input: Self.anySecond) { seconds in
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let text = HTTPDate.format(date)
            #expect(text.utf8.count == 29, "\(text)")
            #expect(HTTPDate.parse(text, now: Self.now) == date, "\(text)")
        }
    }

    @Test("HTTP date: the asctime and RFC 850 forms of a date parse to the same instant as its IMF-fixdate")
    func httpDateObsoleteForms() async {
        // RFC 850 years have two digits: within 49 years of the present they name one year.
        let nearNow = Gen<Int64>.value(in: 1_795_219_200 - 49 * 31_536_000...1_795_219_200 + 49 * 31_536_000)
        await propertyCheck(count: Property.cases(1000), input: Gen<Int64>.value(in: -30_610_224_000...Self.lastSecond), nearNow) { seconds, recent in
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.parse(Self.asctime(HTTPDate.format(date)), now: Self.now) == date)
            let recentDate = Date(timeIntervalSince1970: TimeInterval(recent))
            #expect(HTTPDate.parse(Self.rfc850(HTTPDate.format(recentDate)), now: Self.now) == recentDate)
        }
    }

    @Test("HTTP date: the letters of any of the three forms, in any case, give the same instant")
    func httpDateAnyCase() async {
        let nearNow = Gen<Int64>.value(in: 1_795_219_200 - 49 * 31_536_000...1_795_219_200 + 49 * 31_536_000)
        let flips = Gen<Bool>.bool.array(of: 32)
        await propertyCheck(count: Property.cases(1000), input: nearNow, Gen<Int>.value(in: 0...2), flips) { seconds, form, flips in
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let imf = HTTPDate.format(date)
            let text = [imf, Self.asctime(imf), Self.rfc850(imf)][form]
            var flipped = ""
            for (index, character) in text.enumerated() {
                flipped += flips[index % flips.count] ? character.uppercased() : character.lowercased()
            }
            #expect(HTTPDate.parse(flipped, now: Self.now) == date, "\(flipped)")
        }
    }

    @Test("cookie date: any input parses or not, and what parses lies in years 1601 to 9999")
    func cookieDateParsesSafely() async {
        await propertyCheck(count: Property.cases(1500), input: Property.hostile(Self.samples, favouring: Self.alphabet)) { text in
            guard let date = CookieDate.parse(text) else { return }
            let seconds = date.timeIntervalSince1970
            #expect(seconds >= Double(Self.firstCookieSecond) && seconds <= Double(Self.lastSecond))
        }
    }

    @Test("cookie date: its four tokens in any order, between any delimiters, give the date")
    func cookieDateRoundTrip() async {
        let delimiters = Gen<UInt8>.value(in: 0...6).array(of: 3)
        await propertyCheck(
            count: Property.cases(1500), input: Gen<Int64>.value(in: Self.firstCookieSecond...Self.lastSecond), Gen<Int>.value(in: 0...23), delimiters
        ) { seconds, order, separators in
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            // "Sun, 06 Nov 1994 08:49:37 GMT": day, month, year and time, in one of 24 orders.
            let parts = HTTPDate.format(date).split(separator: " ").dropFirst().prefix(4).map(String.init)
            var tokens = parts
            var remaining = order
            var shuffled: [String] = []
            for count in stride(from: 4, to: 0, by: -1) {
                shuffled.append(tokens.remove(at: remaining % count))
                remaining /= count
            }
            let choices = [" ", ",", " ; ", "\t", "/", "  -", "@"]
            var text = shuffled[0]
            for (index, token) in shuffled.dropFirst().enumerated() { text += choices[Int(separators[index])] + token }
            #expect(CookieDate.parse(text) == date, "\(text)")
        }
    }

    // MARK: The obsolete forms, made from an IMF-fixdate

    /// `Sun Nov  6 08:49:37 1994` from `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func asctime(_ imf: String) -> String {
        let fields = imf.split(separator: " ").map(String.init)
        let day = fields[1].hasPrefix("0") ? " " + fields[1].dropFirst() : fields[1]
        return "\(fields[0].dropLast()) \(fields[2]) \(day) \(fields[4]) \(fields[3])"
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT` from `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func rfc850(_ imf: String) -> String {
        let long = ["Mon": "Monday", "Tue": "Tuesday", "Wed": "Wednesday", "Thu": "Thursday", "Fri": "Friday", "Sat": "Saturday", "Sun": "Sunday"]
        let fields = imf.split(separator: " ").map(String.init)
        return "\(long[String(fields[0].dropLast())]!), \(fields[1])-\(fields[2])-\(fields[3].suffix(2)) \(fields[4]) GMT"
    }
}
