import Courier
import CourierTesting
import Foundation
import Testing

/// Several `courier` processes sharing one cache in PostgreSQL, against a test server that
/// counts the requests to each URL (its `/cacheable` body is `hit N`, N the URL's count).
@Suite("courier --cache postgres://", .serialized)
struct PostgresCacheProcessesTests {
    @Test func fourProcessesShareHitsInvalidationsAndTheByteBound() async throws {
        try await withServerAndSharedPostgres { server, database in
            let cache = database.absoluteString
            let url = server.baseURL.absoluteString + "/cacheable?key=fleet&cc=max-age%3D600"
            let first = try await runCourier(["fetch", "-s", "--cache", cache, url])
            #expect(first.status == 0)
            #expect(first.stdout == "hit 1")
            #expect(first.stderr.isEmpty)
            // Three more processes at once: each is answered by the first one's entry.
            let others = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<3 { group.addTask { try await runCourier(["fetch", "-s", "--cache", cache, url]).stdout } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(others == ["hit 1", "hit 1", "hit 1"])
            // An unsafe request by one process invalidates the entry for all of them.
            #expect(try await runCourier(["fetch", "-s", "-X", "POST", "--cache", cache, url]).stdout == "hit 2")
            #expect(try await runCourier(["fetch", "-s", "--cache", cache, url]).stdout == "hit 3")
            #expect(try await runCourier(["fetch", "-s", "--cache", cache, url]).stdout == "hit 3")
            let stats = try await runCourier(["cache", "stats", "--cache", cache, "--report", "json"])
            #expect(stats.stdout.hasPrefix("{\"entries\":1,"))

            // The byte bound, given to every process, holds whichever process wrote.
            let padding = String(repeating: "p", count: 1000)
            for index in 0..<8 {
                let padded = server.baseURL.absoluteString + "/cacheable?key=bound-\(index)&cc=max-age%3D600&h=X-Padding:\(padding)"
                #expect(try await runCourier(["fetch", "-s", "--cache", cache, "--cache-max-bytes", "4000", padded]).status == 0)
            }
            let bounded = try await runCourier(["cache", "stats", "--cache", cache, "--report", "json"])
            let bytes = bounded.stdout.split(separator: ":").last.flatMap { Int($0.dropLast(2)) }
            #expect(bytes.map { $0 <= 4000 } == true, "\(bounded.stdout)")
            #expect(try await runCourier(["cache", "clear", "--cache", cache]).status == 0)
            #expect(try await runCourier(["cache", "stats", "--cache", cache, "--report", "json"]).stdout == "{\"entries\":0,\"bytes\":0}\n")
        }
    }

    @Test func aDatabaseThatIsDownCostsOneWarningAndNoFailedRequest() async throws {
        try await withServerAndPostgres { server, cluster, database in
            try await offThePool { cluster.kill() }
            let url = server.baseURL.absoluteString + "/cacheable?key=down&cc=max-age%3D600"
            let result = try await runCourier(["fetch", "--cache", database.absoluteString, url])
            #expect(result.status == 0)
            #expect(result.stdout == "hit 1")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(lines.first?.hasPrefix("courier: warning: the cache database at postgres://") == true)
            #expect(lines.first?.contains("unavailable") == true)
            let stats = try await runCourier(["cache", "stats", "--cache", database.absoluteString])
            #expect(stats.status != 0)
            #expect(stats.stderr.contains("cache database"))
        }
    }
}
