import Courier
import CourierTesting
import Foundation
import Testing

/// Several `courier batch` processes sharing their per-origin limits through one PostgreSQL
/// database, against a server that counts the requests it answers at once.
@Suite("courier batch --limits postgres://", .serialized)
struct PostgresLimitsProcessesTests {
    /// Writes a batch file of `count` GETs of `url` plus a query item of each request's own.
    private func batchFile(_ url: String, count: Int, name: String) throws -> URL {
        let items = (0..<count).map { "{\"url\": \"\(url)&n=\(name)-\($0)\"}" }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-limits-\(UUID().uuidString).json")
        try Data(("[" + items.joined(separator: ",") + "]").utf8).write(to: file)
        return file
    }

    /// Runs four `courier batch FILE ARGUMENTS…` at once, each with a file of its own; returns
    /// their statuses and stderr.
    private func fourBatches(_ url: String, count: Int, _ arguments: [String]) async throws -> [(status: Int32, stderr: String)] {
        let files = try (0..<4).map { try batchFile(url, count: count, name: "p\($0)") }
        defer { for file in files { try? FileManager.default.removeItem(at: file) } }
        return try await withThrowingTaskGroup(of: (status: Int32, stderr: String).self) { group in
            for file in files {
                group.addTask {
                    let run = try await runCourier(["batch", file.path, "--mode", "settle"] + arguments)
                    return (run.status, run.stderr)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func fourProcessesKeepToOneLimitAndAllWaitAfterOne429() async throws {
        try await withServerAndSharedPostgres { server, database in
            let url = server.baseURL.absoluteString + "/polite?key=fleet&delay=0.1&throttle_at=12&retry_after=2"
            let runs = try await fourBatches(url, count: 8, ["--concurrency", "4", "--limits", database.absoluteString, "--per-host", "2"])
            #expect(runs.allSatisfy { $0.stderr.isEmpty || !$0.stderr.contains("warning") }, "\(runs.map(\.stderr))")
            let summary = server.traffic.summary(for: "fleet")
            #expect(summary.arrivals.count == 32)
            // Sixteen would be in flight at once without the shared limit.
            #expect(summary.mostAtOnce <= 2, "\(summary.mostAtOnce) requests were answered at once")
            let throttled = try #require(summary.throttledAt)
            // An exchange admitted while the 429 was on its way may still arrive after it,
            // up to a second later on a loaded machine (one CI run held requests back 0.42 s);
            // without the pause, the 0.9 s after that would see dozens.
            let during = summary.arrivals.filter { $0 > throttled + 1.0 && $0 < throttled + 1.9 }
            #expect(during.isEmpty, "requests arrived during the pause: \(summary.arrivals)")
        }
    }

    @Test func withoutTheDatabaseEachProcessKeepsItsOwnLimitAfterOneWarning() async throws {
        try await withServerAndPostgres { server, cluster, database in
            try await offThePool { cluster.kill() }
            let url = server.baseURL.absoluteString + "/polite?key=alone&delay=0.1"
            let runs = try await fourBatches(url, count: 6, ["--concurrency", "3", "--limits", database.absoluteString, "--per-host", "1"])
            for run in runs {
                #expect(run.status == 0)
                let warnings = run.stderr.split(separator: "\n").filter { $0.contains("courier: warning: the limits database at postgres://") }
                #expect(warnings.count == 1, "\(run.stderr)")
            }
            let summary = server.traffic.summary(for: "alone")
            #expect(summary.arrivals.count == 24)
            // Each process keeps to its own --per-host 1: four at once at most.
            #expect(summary.mostAtOnce <= 4)
        }
    }
}
