import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// What the `/polite` route saw for each key: when each request arrived, how many were being
/// answered at once, and when it answered `429`. A request counts as being answered from its
/// arrival until its delay has passed, as the server answers it then.
public final class TrafficLedger: Sendable {
    /// One key's traffic, as ``TrafficLedger/summary(for:)`` reports it.
    public struct Summary: Sendable, Hashable {
        /// The most requests being answered at once.
        public var mostAtOnce: Int
        /// When each request arrived, in seconds after the first, in order.
        public var arrivals: [Double]
        /// When the route answered `429`, in seconds after the first request; `nil` if it did not.
        public var throttledAt: Double?
    }

    private struct Traffic {
        var start: Date
        var ends: [Date] = []
        var summary = Summary(mostAtOnce: 0, arrivals: [])
    }

    private let traffic = NIOLockedValueBox<[String: Traffic]>([:])

    public init() {}

    /// Records a request for `key` answered `duration` seconds from now; returns how many are
    /// being answered now, this one included, and its place among the key's requests (from 1).
    func arrive(key: String, duration: Double, now: Date = Date()) -> (atOnce: Int, order: Int) {
        traffic.withLockedValue { all in
            var entry = all[key] ?? Traffic(start: now)
            entry.ends.removeAll { $0 <= now }
            entry.ends.append(now.addingTimeInterval(duration))
            entry.summary.mostAtOnce = max(entry.summary.mostAtOnce, entry.ends.count)
            entry.summary.arrivals.append(now.timeIntervalSince(entry.start))
            all[key] = entry
            return (entry.ends.count, entry.summary.arrivals.count)
        }
    }

    /// Notes that the latest request for `key` was answered `429`.
    func throttled(key: String, now: Date = Date()) {
        traffic.withLockedValue { all in
            guard let start = all[key]?.start else { return }
            all[key]?.summary.throttledAt = now.timeIntervalSince(start)
        }
    }

    /// What the route saw for `key`; empty when it saw nothing.
    public func summary(for key: String) -> Summary {
        traffic.withLockedValue { $0[key]?.summary } ?? Summary(mostAtOnce: 0, arrivals: [])
    }
}

extension TestServerRoutes {
    /// `/polite?key=K&delay=S&throttle_at=N&retry_after=R&spent_at=M&reset=T`: a server that
    /// counts, for each key, the requests it answers at once (see ``TrafficLedger``), answering
    /// each after `S` seconds (default 0.05). The Nth request is answered `429` with
    /// `Retry-After: R` (default 2); the Mth says its quota is spent until `T` seconds from now,
    /// with `RateLimit-Policy: "default";q=1000;w=60` and `RateLimit: "default";r=0;t=T`
    /// (default 2). Others are `200`, or the status `status=S` names, with the count of
    /// requests answered at once.
    static func polite(_ request: TestRequest) -> TestResponse {
        let key = request.queryValue("key") ?? ""
        guard let delay = self.seconds(request.queryValue("delay"), default: 0.05, maximum: 10) else {
            return .error(.badRequest, "invalid delay")
        }
        let seconds = Double(delay.nanoseconds) / 1e9
        let (atOnce, order) = request.traffic.arrive(key: key, duration: seconds)
        if let limit = request.queryValue("throttle_at").flatMap(Int.init), order == limit {
            request.traffic.throttled(key: key)
            var response = TestResponse.error(.tooManyRequests, "slow down")
            response.headers.replaceOrAdd(name: "Retry-After", value: request.queryValue("retry_after") ?? "2")
            response.delay = delay
            return response
        }
        var response = TestResponse.json(.object([("at_once", .int(Int64(atOnce))), ("order", .int(Int64(order)))]))
        if let code = request.queryValue("status").flatMap(Int.init) {
            guard (200...599).contains(code) else { return .error(.badRequest, "invalid status") }
            response.status = HTTPResponseStatus(statusCode: code)
        }
        if let spent = request.queryValue("spent_at").flatMap(Int.init), order == spent {
            response.headers.add(name: "RateLimit-Policy", value: "\"default\";q=1000;w=60")
            response.headers.add(name: "RateLimit", value: "\"default\";r=0;t=\(request.queryValue("reset") ?? "2")")
        }
        response.delay = delay
        return response
    }
}
