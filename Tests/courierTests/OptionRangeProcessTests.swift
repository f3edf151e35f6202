import CourierTesting
import Foundation
import Testing

@testable import courier

@Suite("courier: absurd numbers end the process with status 2, not a signal")
struct OptionRangeProcessTests {
    /// The conversions that trapped: `--timeout` in fetch, batch and download, `--deadline` in
    /// queue run. `URL` stands for the server's URL and `FOLDER` for a scratch folder.
    @Test(arguments: [
        ["fetch", "URL", "--timeout", "1e300"],
        ["fetch", "URL", "--timeout", "inf"],
        ["fetch", "URL", "--retry", "99999999999999999999"],
        ["download", "URL", "--dir", "FOLDER", "--timeout", "1e300"],
        ["batch", "FOLDER/requests.json", "--timeout", "1e300"],
        ["queue", "run", "--queue", "FOLDER/queue.sqlite", "--deadline", "1e300"],
    ])
    func exitsWithStatus2(arguments: [String]) async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer { server in
            let url = server.url("/get").absoluteString
            try Data("[{\"url\": \"\(url)\"}]".utf8).write(to: folder.appendingPathComponent("requests.json"))
            let child = try ChildProcess.launch(
                arguments.map { $0 == "URL" ? url : $0.replacingOccurrences(of: "FOLDER", with: folder.path) }
            )
            let (status, _) = try await child.finish()
            #expect(child.process.terminationReason == .exit, "ended by signal \(status)")
            #expect(status == ExitStatus.invalidInput.rawValue)
            #expect(server.receivedRequests.isEmpty)
        }
    }
}
