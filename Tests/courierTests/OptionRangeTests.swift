import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// One value of one numeric option of one subcommand that must be refused, and the words of
/// the range its refusal names.
struct AbsurdOption: Sendable, CustomTestStringConvertible {
    let command: String
    let option: String
    let value: String
    let range: String

    var testDescription: String { "\(command) \(option) \(value)" }

    static let seconds = "more than 0 and at most 31536000"
    static let secondsValues = ["1e300", "inf", "-inf", "nan", "0", "-0", "-1", "31536000.001", "1e-400", "1.5.2"]

    /// Seconds options, and whole-number options with the values just outside their range.
    static let all: [AbsurdOption] =
        ["fetch", "download", "batch"].flatMap { command in
            ["--timeout", "--connect-timeout"].flatMap { option in
                secondsValues.map { AbsurdOption(command: command, option: option, value: $0, range: seconds) }
            }
                + whole(command, "--max-redirects", below: "-1", above: "101", range: "from 0 to 100")
                + whole(command, "--retry", below: "-1", above: "101", range: "from 0 to 100")
        }
        + secondsValues.map { AbsurdOption(command: "queue run", option: "--deadline", value: $0, range: seconds) }
        + whole("download", "--attempts", below: "0", above: "1001", range: "from 1 to 1000")
        + whole("batch", "--concurrency", below: "0", above: "1025", range: "from 1 to 1024")
        + whole("fetch", "--max-filesize", below: "-1", above: "9223372036854775808", range: "from 0 to 9223372036854775807")

    /// The values just outside the range, huge ones, and ones that are not whole numbers.
    static func whole(_ command: String, _ option: String, below: String, above: String, range: String) -> [AbsurdOption] {
        [below, above, "99999999999999999999", "-99999999999999999999", "1.5", "1e3", "nan", "inf"].map {
            AbsurdOption(command: command, option: option, value: $0, range: range)
        }
    }
}

@Suite("courier: numeric options are checked before anything is sent")
struct OptionRangeTests {
    @Test("An absurd value is invalid input naming the option and its range; nothing is sent", arguments: AbsurdOption.all)
    func absurdValuesAreRefused(_ absurd: AbsurdOption) async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state").path
        try await withServer { server in
            let before = try await Self.prepare(absurd.command, server: server, state: state)
            let arguments = try Self.commandLine(absurd.command, server: server, folder: folder, state: state)
            let run = await courier(arguments + [absurd.option, absurd.value])
            #expect(run.status == ExitStatus.invalidInput.rawValue, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("courier: ") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(run.stderr.contains(absurd.option) && run.stderr.contains(absurd.range), "\(run.stderr)")
            #expect(server.receivedRequests.count == before, "a request reached the server")
        }
    }

    /// For `queue run`, a record of the server's is left pending (its 503 asks to try again
    /// later), so that a run that started would send it again. Returns the requests so far.
    static func prepare(_ command: String, server: TestServer, state: String) async throws -> Int {
        guard command == "queue run" else { return 0 }
        let fetch = await courier("fetch", server.url("/status/503").absoluteString, "--data", "x", "--durable", "--queue", state)
        try #require(fetch.stdout.hasPrefix("queued "), "\(fetch.status) \(fetch.stderr)")
        return server.receivedRequests.count
    }

    /// The subcommand's command line, without the option tried.
    static func commandLine(_ command: String, server: TestServer, folder: URL, state: String) throws -> [String] {
        switch command {
        case "fetch": return ["fetch", server.url("/get").absoluteString]
        case "download": return ["download", server.url("/bytes/10").absoluteString, "--dir", folder.path]
        case "batch":
            let file = folder.appendingPathComponent("requests.json")
            try Data("[{\"url\": \"\(server.url("/get").absoluteString)\"}]".utf8).write(to: file)
            return ["batch", file.path]
        default: return ["queue", "run", "--queue", state]
        }
    }

    @Test func theEqualsFormIsRefusedAlike() async throws {
        try await withServer { server in
            for option in ["--timeout=-1", "--retry=-1", "--max-redirects=1e300", "--max-filesize=-0.5"] {
                let run = await courier("fetch", server.url("/get").absoluteString, option)
                #expect(run.status == ExitStatus.invalidInput.rawValue, "\(option): \(run.stderr)")
                #expect(run.stderr.contains(String(option.prefix { $0 != "=" })), "\(run.stderr)")
            }
            #expect(server.receivedRequests.isEmpty)
        }
    }
}
