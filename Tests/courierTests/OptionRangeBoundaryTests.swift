import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

@Suite("courier: the ends of each numeric option's range are accepted")
struct OptionRangeBoundaryTests {
    @Test func theUpperEndsWork() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer { server in
            let fetch = await courier(
                "fetch", server.url("/get").absoluteString, "--timeout", "31536000", "--max-redirects", "100", "--retry", "100",
                "--max-filesize", "9223372036854775807"
            )
            #expect(fetch.status == 0, "\(fetch.stderr)")
            let download = await courier(
                "download", server.url("/bytes/10").absoluteString, "--dir", folder.path, "--attempts", "1000", "--timeout", "31536000"
            )
            #expect(download.status == 0, "\(download.stderr)")
            let file = folder.appendingPathComponent("requests.json")
            try Data("[{\"url\": \"\(server.url("/get").absoluteString)\"}]".utf8).write(to: file)
            let batch = await courier("batch", file.path, "--concurrency", "1024", "--timeout", "31536000", "--retry", "100")
            #expect(batch.status == 0, "\(batch.stderr)")
            #expect(server.receivedRequests.count == 3)
        }
        let queue = folder.appendingPathComponent("queue.sqlite").path
        let run = await courier("queue", "run", "--queue", queue, "--deadline", "31536000")
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func theLowerEndsAreHonoured() async throws {
        try await withServer { server in
            // --max-filesize 0 is a limit, not a refusal: a body of one byte is too large (status 9).
            let limited = await courier("fetch", server.url("/bytes/1").absoluteString, "--max-filesize", "0")
            #expect(limited.status == ExitStatus.fileTooLarge.rawValue, "\(limited.stderr)")
            // --max-redirects 0 follows none: the redirect itself is delivered. -0 is 0.
            let redirected = await courier(
                "fetch", server.url("/redirect/1").absoluteString, "--max-redirects", "-0", "--retry", "0", "--report", "json"
            )
            #expect(redirected.status == 0, "\(redirected.stderr)")
            let delivered = try report(redirected.stdout.trimmingCharacters(in: .newlines))
            #expect(delivered["status"] as? Int == 302)
            #expect(server.receivedRequests.count == 2)
        }
    }

    @Test(
        "--help gives each numeric option's range",
        arguments: [
            (["fetch"], ["31536000", "0 to 100", "9223372036854775807"]),
            (["download"], ["31536000", "0 to 100"]),
            (["batch"], ["31536000", "1 to 1024"]),
            (["queue", "run"], ["31536000"]),
        ])
    func helpNamesTheRanges(command: [String], ranges: [String]) async {
        let run = await courier(command + ["--help"])
        #expect(run.status == 0)
        let help = run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for range in ranges { #expect(help.contains(range), "\(command) --help lacks \(range)") }
    }
}
