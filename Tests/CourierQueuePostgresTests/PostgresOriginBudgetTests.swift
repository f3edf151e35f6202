import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import CourierLimitsPostgres

@Suite("Origin budget: what a response says")
struct BudgetNoticeTests {
    @Test func retryAfterOnA429OrA503IsAPause() {
        #expect(BudgetNotice.read(status: 429, headers: ["Retry-After": "7"])?.pause == .seconds(7))
        #expect(BudgetNotice.read(status: 503, headers: ["Retry-After": "0"])?.pause == .zero)
        #expect(BudgetNotice.read(status: 200, headers: ["Retry-After": "7"]) == nil)
        #expect(BudgetNotice.read(status: 429, headers: ["Retry-After": "soon"]) == nil)
        #expect(BudgetNotice.read(status: 429, headers: ["Retry-After": "99999999999"])?.pause == .seconds(86_400))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let date = HTTPDate.format(now.addingTimeInterval(30))
        #expect(BudgetNotice.read(status: 429, headers: ["Retry-After": date], now: now)?.pause == .seconds(30))
    }

    @Test func theCurrentDraftsFieldsGiveTheTightestPolicy() {
        let headers: Headers = [
            "RateLimit-Policy": "\"burst\";q=100;w=60, \"daily\";q=1000;w=86400",
            "RateLimit": "\"burst\";r=40;t=30, \"daily\";r=5;t=3600",
        ]
        let notice = BudgetNotice.read(status: 200, headers: headers)
        #expect(notice == BudgetNotice(pause: nil, remaining: 5, reset: 3600, quota: 1000, window: 86_400))
    }

    @Test func aSpentQuotaIsAPauseUntilItsReset() {
        let notice = BudgetNotice.read(status: 200, headers: ["RateLimit": "\"default\";r=0;t=12"])
        #expect(notice?.pause == .seconds(12))
        #expect(notice?.remaining == 0)
    }

    @Test func theEarlierFormsAreRead() {
        #expect(
            BudgetNotice.read(status: 200, headers: ["RateLimit": "limit=100, remaining=50, reset=30"])
                == BudgetNotice(pause: nil, remaining: 50, reset: 30, quota: 100, window: nil)
        )
        #expect(
            BudgetNotice.read(status: 200, headers: ["RateLimit-Limit": "10", "RateLimit-Remaining": "0", "RateLimit-Reset": "4"])
                == BudgetNotice(pause: .seconds(4), remaining: 0, reset: 4, quota: 10, window: nil)
        )
    }

    @Test(
        arguments: [
            ["RateLimit": "\"default\";r=-1;t=5"], ["RateLimit": "\"default\";r=1.5"], ["RateLimit": "(\"a\" \"b\");r=1"],
            ["RateLimit": "\"unterminated"], ["RateLimit-Remaining": "-3"], ["RateLimit-Remaining": "lots"], ["RateLimit": ""],
        ] as [Headers])
    func whatTheDraftDoesNotAllowIsIgnored(headers: Headers) {
        #expect(BudgetNotice.read(status: 200, headers: headers) == nil)
    }

    @Test func aResetTooFarAwayIsCutToADay() {
        #expect(BudgetNotice.read(status: 200, headers: ["RateLimit": "\"d\";r=0;t=999999999999"])?.pause == .seconds(86_400))
    }
}

/// The budget against a real, throwaway PostgreSQL server, and a server that counts the
/// requests it answers at once. Two budgets on one database stand for two processes.
@Suite("Origin budget in PostgreSQL", .serialized)
struct PostgresOriginBudgetTests {
    /// A client on `server` whose exchanges take permits from `budget`, shut down after `body`.
    private func withBudgetClient<T>(
        _ server: TestServer, budget: PostgresOriginBudget, concurrency: Int = 16, _ body: (CourierClient) async throws -> T
    ) async throws -> T {
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.limits.maximumConcurrentRequestsPerHost = concurrency
        configuration.limits.maximumConnectionsPerHost = concurrency
        configuration.originBudget = budget
        return try await CourierClient.withClient(configuration: configuration, body)
    }

    /// Sends `count` GETs of `path` at once through `client`, each with a query item of its own
    /// (identical requests in flight together would share one exchange); returns their statuses.
    private func burst(_ client: CourierClient, path: String, count: Int) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask {
                    var request = CourierRequest<CourierResponse>(path: path + "&n=\(index)-\(UUID().uuidString)")
                    request.validators = []
                    return try await client.send(request).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// Starts a server and PostgreSQL, and sends `count` GETs of `path` (each with a query item
    /// of its own) from each of two clients whose budgets `make` creates on the one database, all
    /// at once; returns the server, with what it saw, and the statuses.
    private func fromTwoProcesses(
        path: String, count: Int, _ make: @escaping (URL) throws -> PostgresOriginBudget,
        _ check: (TestServer, [Int]) throws -> Void
    ) async throws {
        try await withServerAndSharedPostgres { server, url in
            let budgets = [try make(url), try make(url)]
            let statuses = try await withBudgetClient(server, budget: budgets[0]) { first in
                try await withBudgetClient(server, budget: budgets[1]) { second in
                    async let one = burst(first, path: path, count: count)
                    async let other = burst(second, path: path, count: count)
                    return try await one + other
                }
            }
            for budget in budgets { await budget.shutdown() }
            try check(server, statuses)
        }
    }

    @Test func twoProcessesTogetherKeepToTheSharedConcurrency() async throws {
        try await fromTwoProcesses(path: "/polite?key=shared&delay=0.1", count: 12) { url in
            try PostgresOriginBudget(url: url, maximumConcurrentRequestsPerOrigin: 3)
        } _: { server, statuses in
            #expect(statuses.count == 24 && statuses.allSatisfy { $0 == 200 })
            let summary = server.traffic.summary(for: "shared")
            #expect(summary.arrivals.count == 24)
            #expect(summary.mostAtOnce <= 3, "\(summary.mostAtOnce) requests were answered at once")
            #expect(summary.mostAtOnce >= 2, "the budget let fewer through than it allows")
        }
    }

    @Test func aRetryAfterSeenByOneProcessHoldsTheOriginForAll() async throws {
        try await fromTwoProcesses(path: "/polite?key=pause&delay=0.05&throttle_at=4&retry_after=2", count: 8) { url in
            try PostgresOriginBudget(url: url, maximumConcurrentRequestsPerOrigin: 2)
        } _: { server, statuses in
            #expect(statuses.filter { $0 == 429 }.count == 1)
            let summary = server.traffic.summary(for: "pause")
            let throttled = try #require(summary.throttledAt)
            // Requests already admitted when the 429 was recorded may still arrive after it,
            // up to a second later on a loaded machine (one CI run held requests back 0.42 s);
            // without the pause, the 0.9 s after that would see dozens.
            let during = summary.arrivals.filter { $0 > throttled + 1.0 && $0 < throttled + 1.9 }
            #expect(during.isEmpty, "requests arrived during the pause: \(summary.arrivals)")
            #expect(summary.arrivals.last.map { $0 >= throttled + 1.9 } == true)
        }
    }

    @Test func aSpentRateLimitHoldsTheOriginUntilItsReset() async throws {
        try await fromTwoProcesses(path: "/polite?key=spent&delay=0.02&spent_at=2&reset=2", count: 3) { url in
            try PostgresOriginBudget(url: url, maximumConcurrentRequestsPerOrigin: 1)
        } _: { server, _ in
            let arrivals = server.traffic.summary(for: "spent").arrivals
            #expect(arrivals.count == 6)
            // One at a time, so the second request's answer is seen before the third is sent.
            #expect(arrivals.count > 2 && arrivals[2] - arrivals[1] >= 1.9, "\(arrivals)")
        }
    }

    @Test func theRateHoldsForTheFleet() async throws {
        try await fromTwoProcesses(path: "/polite?key=rate&delay=0", count: 10) { url in
            try PostgresOriginBudget(url: url, maximumConcurrentRequestsPerOrigin: 16, maximumRequestsPerSecondPerOrigin: 5, burst: 1)
        } _: { server, _ in
            let arrivals = server.traffic.summary(for: "rate").arrivals
            #expect(arrivals.count == 20)
            // Five a second for the fleet: the twenty are granted over 3.8 s at least, and no
            // second-long window holds more than six grants. Arrivals are measured at the server,
            // and a loaded machine can hold the first requests back (new connections) until
            // they arrive with later ones, so the bounds leave a second for that; a rate kept
            // by each process alone (ten a second) spans 1.8 s and puts ten or more in a second.
            #expect((arrivals.last ?? 0) - (arrivals.first ?? 0) >= 2.8, "\(arrivals)")
            let busiest = arrivals.map { start in arrivals.filter { $0 >= start && $0 < start + 1 }.count }.max() ?? 0
            #expect(busiest <= 9, "\(busiest) requests started within one second: \(arrivals)")
        }
    }

    @Test func aDatabaseThatIsDownLeavesEachProcessItsOwnLimitsAndIsReportedOnce() async throws {
        try await withServerAndPostgres { server, cluster, url in
            let reports = NIOLockedValueBox<[PostgresOriginBudget.Availability]>([])
            let budget = try PostgresOriginBudget(url: url, maximumConcurrentRequestsPerOrigin: 1) { change in
                reports.withLockedValue { $0.append(change) }
            }
            try await withBudgetClient(server, budget: budget, concurrency: 4) { client in
                #expect(try await burst(client, path: "/polite?key=before&delay=0.05", count: 4) == [200, 200, 200, 200])
                #expect(server.traffic.summary(for: "before").mostAtOnce == 1)
                try await offThePool { cluster.kill() }
                let statuses = try await burst(client, path: "/polite?key=down&delay=0.2", count: 8)
                #expect(statuses.allSatisfy { $0 == 200 })
                // The process's own limit (4) holds; the shared one (1) cannot be counted.
                #expect(server.traffic.summary(for: "down").mostAtOnce <= 4)
                #expect(reports.withLockedValue { $0.count } == 1)
                try await offThePool { try cluster.restart() }
                try await eventually(seconds: 60) { reports.withLockedValue { $0.last } == .available }
                _ = try await burst(client, path: "/polite?key=after&delay=0.1", count: 4)
                #expect(server.traffic.summary(for: "after").mostAtOnce == 1)
            }
            await budget.shutdown()
        }
    }

    @Test func aBadURLOrLimitIsAConfigurationError() {
        let cases: [(String, Int, Double?)] = [
            ("https://db.example/app", 1, nil), ("postgres://db.example/app", 0, nil), ("postgres://db.example/app", 1, 0),
            ("postgres://db.example/app", 1, .infinity), ("postgres://db.example/app", 1, 1e300), ("postgres://db.example/app", 1, .nan),
        ]
        for (url, concurrency, rate) in cases {
            let error = #expect(throws: CourierError.self) {
                _ = try PostgresOriginBudget(url: URL(string: url)!, maximumConcurrentRequestsPerOrigin: concurrency, maximumRequestsPerSecondPerOrigin: rate)
            }
            #expect(error?.kind == .invalidConfiguration)
        }
    }
}
