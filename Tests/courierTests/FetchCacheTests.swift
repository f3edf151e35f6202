import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// The report lines of a run, parsed.
func reports(_ stdout: String) throws -> [[String: Any]] {
    try stdout.split(separator: "\n").map { try report(String($0)) }
}

/// The body of a report line, as text.
func reportBody(_ object: [String: Any]) -> String? {
    (object["body_base64"] as? String).flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) }
}

/// The values of header `name` in a report line.
func reportHeader(_ object: [String: Any], _ name: String) -> [String] {
    ((object["headers"] as? [[String]]) ?? []).filter { $0[0].lowercased() == name.lowercased() }.map { $0[1] }
}

@Suite("courier fetch --cache")
struct FetchCacheTests {
    /// `courier fetch URL --cache FOLDER --report json ARGS…`, one report per delivered response.
    private func fetch(_ url: URL, _ folder: URL, _ arguments: String...) async throws -> [[String: Any]] {
        let run = await courier(["fetch", url.absoluteString, "--cache", folder.path, "--report", "json"] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        return try reports(run.stdout)
    }

    @Test func aSecondRunIsServedFromTheFolderWithItsAge() async throws {
        try await withServer { server in
            try await withCacheFolder { folder in
                let url = server.url("/cacheable?cc=max-age=600&age=30&key=hit")
                let first = try await fetch(url, folder)
                #expect(first.map { $0["source"] as? String } == ["network"])
                let second = try await fetch(url, folder)
                #expect(second.map { $0["source"] as? String } == ["cache"])
                #expect(reportBody(second[0]) == "hit 1")
                let age = try #require(reportHeader(second[0], "Age").first.flatMap(Int.init))
                #expect(age >= 30)
                #expect(server.receivedRequests.count == 1)
            }
        }
    }

    @Test func aRevalidatedResponseCarriesTheHeadersThe304Updated() async throws {
        try await withServer { server in
            try await withCacheFolder { folder in
                let url = server.url("/cacheable?cc=max-age=0&etag=v1&h=X-Stored:old&not_modified_h=X-Stored:new")
                _ = try await fetch(url, folder)
                let second = try await fetch(url, folder)
                #expect(second.map { $0["source"] as? String } == ["revalidated"])
                #expect(second[0]["status"] as? Int == 200)
                #expect(reportBody(second[0]) == "hit 1")
                #expect(reportHeader(second[0], "X-Stored") == ["new"])
                #expect(reportHeader(second[0], "Age").count == 1)
                #expect(server.receivedRequests.last?.header("If-None-Match") == "\"v1\"")
            }
        }
    }

    @Test func cachedThenFreshReportsTheStoredResponseThenTheNetworks() async throws {
        try await withServer { server in
            try await withCacheFolder { folder in
                let url = server.url("/cacheable?cc=max-age=600&key=ctf")
                let first = try await fetch(url, folder, "--cache-mode", "cached-then-fresh")
                #expect(first.map { $0["source"] as? String } == ["network"])
                let second = try await fetch(url, folder, "--cache-mode", "cached-then-fresh")
                #expect(second.map { $0["source"] as? String } == ["cache", "network"])
                #expect(second.map { reportBody($0) } == ["hit 1", "hit 2"])
                let third = try await fetch(url, folder, "--cache-mode", "only-if-cached")
                #expect(reportBody(third[0]) == "hit 2")
            }
        }
    }

    @Test func withoutAReportCachedThenFreshPrintsTheNetworksBodyOnly() async throws {
        try await withServer { server in
            try await withCacheFolder { folder in
                let url = server.url("/cacheable?cc=max-age=600&key=plain").absoluteString
                #expect(await courier("fetch", url, "--cache", folder.path).stdout == "hit 1")
                let run = await courier("fetch", url, "--cache", folder.path, "--cache-mode", "cached-then-fresh")
                #expect(run.status == 0 && run.stdout == "hit 2")
                #expect(await courier("fetch", url, "--cache", folder.path).stdout == "hit 2")
            }
        }
    }

    @Test(arguments: [
        ("reload", ["network"], "hit 2", 2), ("no-store", ["network"], "hit 2", 2), ("no-cache", ["revalidated"], "hit 1", 2),
        ("return-cache-else-load", ["stale"], "hit 1", 1), ("only-if-cached", ["stale"], "hit 1", 1), ("default", ["revalidated"], "hit 1", 2),
    ])
    func eachModeUsesAStaleEntryAsDocumented(mode: String, sources: [String], body: String, requests: Int) async throws {
        try await withServer { server in
            try await withCacheFolder { folder in
                let url = server.url("/cacheable?cc=max-age=0&etag=e&key=\(mode)")
                _ = try await fetch(url, folder)
                let run = try await fetch(url, folder, "--cache-mode", mode)
                #expect(run.map { $0["source"] as? String } == sources)
                #expect(run.map { reportBody($0) } == [body])
                #expect(server.receivedRequests.count == requests)
            }
        }
    }

    @Test func onlyIfCachedAnswers504WhenNothingIsStored() async throws {
        try await withServer { server in
            try await withCacheFolder { folder in
                let run = try await fetch(server.url("/cacheable?cc=max-age=600"), folder, "--cache-mode", "only-if-cached")
                #expect(run.map { $0["status"] as? Int } == [504])
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }

    @Test func aStaleWhileRevalidateRefreshEndsBeforeTheRunDoes() async throws {
        try await withServer { server in
            try await withCacheFolder { folder in
                // Stale as soon as it is stored (Age 5 > max-age 1), but usable for an hour more: a
                // window no load on the machine can outlast between the runs.
                let url = server.url("/cacheable?cc=max-age=1,stale-while-revalidate=3600&age=5")
                let first = try await fetch(url, folder)
                #expect(first.map { reportBody($0) } == ["hit 1"])
                let second = try await fetch(url, folder)
                #expect(second.map { $0["source"] as? String } == ["stale"])
                #expect(second.map { reportBody($0) } == ["hit 1"])
                // The run ended only after its refresh was stored: the next run sees it.
                #expect(server.receivedRequests.count == 2)
                let third = try await fetch(url, folder, "--cache-mode", "only-if-cached")
                #expect(third.map { reportBody($0) } == ["hit 2"])
            }
        }
    }

    @Test func withTheServerStoppedStaleWhenOfflineDeliversTheStoredResponse() async throws {
        try await withCacheFolder { folder in
            let server = try await TestServer.start()
            let url = server.url("/cacheable?cc=max-age=0&etag=e&key=offline").absoluteString
            let first = await courier("fetch", url, "--cache", folder.path)
            try await server.shutdown()
            #expect(first.stdout == "hit 1")
            let refused = await courier("fetch", url, "--cache", folder.path)
            #expect(refused.status == ExitStatus.couldNotConnect.rawValue)
            let offline = await courier("fetch", url, "--cache", folder.path, "--stale-when-offline")
            #expect(offline.status == 0 && offline.stdout == "hit 1")
            #expect(offline.stderr.hasPrefix("courier: note: this is the stored response, "), "\(offline.stderr)")
            let silent = await courier("fetch", url, "--cache", folder.path, "--stale-when-offline", "-s", "--report", "json")
            #expect(silent.stderr.isEmpty)
            #expect(try reports(silent.stdout).map { $0["source"] as? String } == ["stale"])
        }
    }

    @Test func staleWhenOfflineWithoutAFolderIsInvalidInput() async throws {
        let run = await courier("fetch", "http://127.0.0.1:9/", "--stale-when-offline")
        #expect(run.status == 2)
        #expect(run.stderr.contains("--stale-when-offline needs a cache folder"))
    }

    @Test func aModeWithoutAFolderIsInvalidInput() async throws {
        let run = await courier("fetch", "http://127.0.0.1:9/", "--cache-mode", "reload")
        #expect(run.status == 2)
        #expect(run.stderr.contains("--cache-mode reload needs a cache folder"))
        let unknown = await courier("fetch", "http://127.0.0.1:9/", "--cache", "/tmp", "--cache-mode", "sometimes")
        #expect(unknown.status == 2)
    }
}
