import Foundation

/// How old a stored response is and how long it stays fresh (RFC 9111 §4.2).
struct Freshness: Sendable, Hashable {
    /// The freshness lifetime, in seconds.
    var lifetime: TimeInterval
    /// The current age, in seconds.
    var age: TimeInterval

    /// Whether the response is fresh: its lifetime exceeds its age.
    var isFresh: Bool { lifetime > age }
    /// How long the response has been stale; `0` while it is fresh.
    var staleness: TimeInterval { max(0, age - lifetime) }
    /// How long the response stays fresh; `0` once it is stale.
    var remaining: TimeInterval { max(0, lifetime - age) }

    /// Status codes a cache may store and give a heuristic lifetime without explicit
    /// freshness (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]
    /// The share of the time since `Last-Modified` a heuristic lifetime takes (RFC 9111 §4.2.2).
    static let heuristicFraction = 0.1

    /// A freshness with this lifetime and age, in seconds.
    init(lifetime: TimeInterval, age: TimeInterval) {
        self.lifetime = lifetime
        self.age = age
    }

    /// The freshness of `entry` at `now`; `control` is the entry's `Cache-Control`, when the
    /// caller has already read it.
    init(_ entry: CourierCacheEntry, now: Date, heuristicLimit: TimeInterval, control: CacheControl? = nil) {
        let date = Freshness.dateValue(entry.headers, responseDate: entry.responseDate)
        lifetime = Freshness.lifetime(
            status: entry.status, headers: entry.headers, control: control ?? CacheControl(entry.headers), date: date,
            tags: entry.tags, heuristicLimit: heuristicLimit
        )
        age = Freshness.currentAge(
            ageValue: Freshness.ageValue(entry.headers), dateValue: date,
            requestTime: entry.requestDate, responseTime: entry.responseDate, now: now
        )
    }

    /// The freshness lifetime (RFC 9111 §4.2.1): an application's fixed lifetime, else
    /// `s-maxage` for an entry a shared cache stored, else `max-age`, else `Expires` minus `Date` (an invalid `Expires` means already expired),
    /// else an application's default freshness, else the heuristic.
    static func lifetime(
        status: Int, headers: Headers, responseDate: Date, tags: [String: String], heuristicLimit: TimeInterval
    ) -> TimeInterval {
        lifetime(
            status: status, headers: headers, control: CacheControl(headers), date: dateValue(headers, responseDate: responseDate),
            tags: tags, heuristicLimit: heuristicLimit
        )
    }

    /// The freshness lifetime of a response whose `Date` value is `date`.
    private static func lifetime(
        status: Int, headers: Headers, control: CacheControl, date: Date, tags: [String: String], heuristicLimit: TimeInterval
    ) -> TimeInterval {
        if let fixed = tags[AppCachePolicy.Tag.fixedLifetime].flatMap({ TimeInterval($0) }) { return fixed }
        if tags[AppCachePolicy.Tag.shared] != nil, let shared = control.seconds("s-maxage") { return TimeInterval(shared) }
        if let maxAge = control.seconds("max-age") { return TimeInterval(maxAge) }
        if let expires = headers.values(for: "Expires").first {
            guard let expiry = HTTPDate.parse(expires) else { return 0 }
            return max(0, expiry.timeIntervalSince(date))
        }
        if let lifetime = tags[AppCachePolicy.Tag.defaultFreshness].flatMap({ TimeInterval($0) }) { return lifetime }
        return heuristicLifetime(status: status, headers: headers, date: date, limit: heuristicLimit)
    }

    /// A tenth of the time between `Last-Modified` and `Date`, at most `limit`, for status
    /// codes that allow it; `0` otherwise (RFC 9111 §4.2.2).
    static func heuristicLifetime(status: Int, headers: Headers, date: Date, limit: TimeInterval) -> TimeInterval {
        guard heuristicallyCacheable.contains(status) || CacheControl(headers).contains("public"),
            let text = headers["Last-Modified"], let modified = HTTPDate.parse(text), modified < date
        else { return 0 }
        return min(date.timeIntervalSince(modified) * heuristicFraction, limit)
    }

    /// The current age (RFC 9111 §4.2.3), from the `Age` value, the `Date` value, the request
    /// and response times and the present.
    static func currentAge(
        ageValue: TimeInterval, dateValue: Date, requestTime: Date, responseTime: Date, now: Date
    ) -> TimeInterval {
        let apparentAge = max(0, responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedAgeValue = ageValue + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince(responseTime))
        return correctedInitialAge + residentTime
    }

    /// The `Age` field's value: its first line read as delta-seconds; `0` when absent or invalid.
    static func ageValue(_ headers: Headers) -> TimeInterval {
        guard let line = headers.values(for: "Age").first, let first = FieldList.elements(line).first else { return 0 }
        return TimeInterval(CacheControl.deltaSeconds(String(first)) ?? 0)
    }

    /// The `Date` field's value; the time the response was received when it is missing or
    /// invalid (RFC 9110 §6.6.1).
    static func dateValue(_ headers: Headers, responseDate: Date) -> Date {
        headers["Date"].flatMap { HTTPDate.parse($0) } ?? responseDate
    }
}
