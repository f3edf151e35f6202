import Foundation
import Testing

@testable import Courier

@Suite("Cache: age and freshness arithmetic (RFC 9111 §4.2)")
struct CacheFreshnessTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// (Age value, Date offset, request time offset, response time offset, now offset, current age)
    static let ages: [(Double, Double, Double, Double, Double, Double)] = [
        (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        (0.0, 0.0, 0.0, 0.0, 30.0, 30.0),
        (100.0, 0.0, 0.0, 0.0, 0.0, 100.0),  // an upstream Age
        (0.0, -50.0, 0.0, 0.0, 0.0, 50.0),  // a Date in the past: apparent age
        (0.0, 50.0, 0.0, 0.0, 0.0, 0.0),  // a Date in the future never makes the age negative
        (10.0, 0.0, 0.0, 5.0, 5.0, 15.0),  // the response delay corrects the Age
        (10.0, -40.0, 0.0, 5.0, 25.0, 65.0),  // apparent age wins over the corrected Age
        (10.0, 0.0, 0.0, 5.0, 2.0, 15.0),  // a now before the response time adds no resident time
    ]

    @Test(arguments: ages)
    func currentAge(ageValue: Double, date: Double, request: Double, response: Double, now: Double, expected: Double) {
        let t = Self.t0
        let age = Freshness.currentAge(
            ageValue: ageValue, dateValue: t + date, requestTime: t + request, responseTime: t + response, now: t + now
        )
        #expect(age == expected)
    }

    /// (status, header fields, expected lifetime) with the response received at t0.
    static let lifetimes: [(Int, [(String, String)], Double)] = [
        (200, [("Cache-Control", "max-age=60")], 60.0),
        (200, [("Cache-Control", "max-age=60"), ("Expires", "Thu, 01 Jan 1970 00:00:00 GMT")], 60.0),
        (200, [("Date", "Fri, 15 Jan 2027 08:00:00 GMT"), ("Expires", "Fri, 15 Jan 2027 08:05:00 GMT")], 300.0),
        (200, [("Date", "Fri, 15 Jan 2027 08:00:00 GMT"), ("Expires", "Fri, 15 Jan 2027 07:00:00 GMT")], 0.0),
        (200, [("Expires", "0")], 0.0),
        (200, [("Expires", "Fri, 15 Jan 2027 08:05:00 UTC")], 0.0),
        (200, [("Expires", "Fri, 15 Jan 2027 08:05:00 GMT"), ("Expires", "0")], 300.0),
        (200, [("Date", "Fri, 15 Jan 2027 08:00:00 GMT"), ("Last-Modified", "Fri, 15 Jan 2027 07:00:00 GMT")], 360.0),
        (200, [("Date", "Fri, 15 Jan 2027 08:00:00 GMT"), ("Last-Modified", "Fri, 15 Jan 2010 07:00:00 GMT")], 86_400.0),
        (200, [("Last-Modified", "garbage")], 0.0),
        (201, [("Date", "Fri, 15 Jan 2027 08:00:00 GMT"), ("Last-Modified", "Fri, 15 Jan 2027 07:00:00 GMT")], 0.0),
        (201, [("Cache-Control", "public"), ("Date", "Fri, 15 Jan 2027 08:00:00 GMT"), ("Last-Modified", "Fri, 15 Jan 2027 07:00:00 GMT")], 360.0),
        (404, [("Date", "Fri, 15 Jan 2027 08:00:00 GMT"), ("Last-Modified", "Fri, 15 Jan 2027 07:00:00 GMT")], 360.0),
        (200, [("Cache-Control", "s-maxage=60")], 0.0),
        (200, [], 0.0),
    ]

    @Test(arguments: lifetimes)
    func lifetime(status: Int, fields: [(String, String)], expected: Double) {
        let lifetime = Freshness.lifetime(
            status: status, headers: Headers(fields), responseDate: Self.t0, tags: [:], heuristicLimit: 86_400
        )
        #expect(lifetime == expected)
    }

    @Test func applicationLifetimesComeFromTheEntrysTags() {
        let fixed = [AppCachePolicy.Tag.fixedLifetime: "30.0"]
        let fallback = [AppCachePolicy.Tag.defaultFreshness: "600.0"]
        let noStore = Headers([("Cache-Control", "max-age=5")])
        #expect(Freshness.lifetime(status: 200, headers: noStore, responseDate: Self.t0, tags: fixed, heuristicLimit: 0) == 30)
        #expect(Freshness.lifetime(status: 200, headers: noStore, responseDate: Self.t0, tags: fallback, heuristicLimit: 0) == 5)
        #expect(Freshness.lifetime(status: 200, headers: Headers(), responseDate: Self.t0, tags: fallback, heuristicLimit: 0) == 600)
    }

    @Test(arguments: [("", 0.0), ("120", 120.0), ("abc", 0.0), ("-3", 0.0), ("7, 9", 7.0)])
    func ageFieldValues(text: String, seconds: Double) {
        let headers = text.isEmpty ? Headers() : Headers([("Age", text)])
        #expect(Freshness.ageValue(headers) == seconds)
    }
}
