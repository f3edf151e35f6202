import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// Runs `courier ARGS…` in-process with stdout taken for a terminal (and stderr too with
/// `stderrIsTerminal`), under `environment`.
func courierOnTerminal(
    _ arguments: [String], environment: [String: String] = [:], stderrIsTerminal: Bool = false
) async -> (status: Int32, stdout: String, stderr: String, raw: Data, progress: [String]) {
    let (output, captured) = Output.capturing(terminal: stderrIsTerminal, standardOutputIsTerminal: true)
    let status = await CourierCLI.$environment.withValue(environment) { await CourierCLI.run(arguments, output: output) }
    return (status, captured.stdout, captured.stderr, captured.data, captured.progress)
}

/// `text` without its ANSI colour sequences.
func withoutColors(_ text: String) -> String {
    text.replacing(/\u{1B}\[[0-9;]*m/, with: "")
}

/// The test server's URL that answers `body` with `Content-Type: type`.
func answering(_ body: String, type: String = "application/json", on server: TestServer) -> String {
    answering(Data(body.utf8), type: type, on: server)
}

/// The test server's URL that answers `body` with `Content-Type: type`.
func answering(_ body: Data, type: String = "application/json", on server: TestServer) -> String {
    let encoded = body.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    let query = type.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? type
    return server.url("/base64/\(encoded)?content_type=\(query)").absoluteString
}

@Suite("courier fetch on a terminal: JSON laid out and coloured; anything else, and every pipe, as received")
struct TerminalOutputTests {
    static let body = #"{"zeta":1.0E+2,"alpha":[true,null,"x\u00e9"],"empty":{},"none":[],"n":-0.5e-3}"#
    static let indented = """
        {
          "zeta": 1.0E+2,
          "alpha": [
            true,
            null,
            "x\\u00e9"
          ],
          "empty": {},
          "none": [],
          "n": -0.5e-3
        }

        """

    @Test("piped: the bytes are the body's, whatever --pretty says")
    func piped() async throws {
        try await withServer { server in
            for extra in [[], ["--pretty", "all"], ["--pretty", "format"], ["--pretty", "colors"]] {
                let run = await courier(["fetch", answering(Self.body, on: server)] + extra)
                #expect(run.status == 0, "\(run.stderr)")
                #expect(run.raw == Data(Self.body.utf8), "\(extra)")
            }
        }
    }

    @Test("on a terminal: indented two spaces, keys in the order sent, numbers and strings as sent, and coloured")
    func terminal() async throws {
        try await withServer { server in
            let run = await courierOnTerminal(["fetch", answering(Self.body, on: server)])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(withoutColors(run.stdout) == Self.indented)
            #expect(run.stdout.contains("\u{1B}[1;34m\"zeta\"\u{1B}[0m: \u{1B}[36m1.0E+2\u{1B}[0m"))
            #expect(run.stdout.contains("\u{1B}[32m\"x\\u00e9\"\u{1B}[0m"))
            #expect(run.stdout.contains("\u{1B}[35mnull\u{1B}[0m"))
        }
    }

    @Test(
        "NO_COLOR set and not empty, TERM=dumb, or --pretty format: indented without colours",
        arguments: [
            (["NO_COLOR": "1"], [String]()), (["TERM": "dumb"], []), ([:], ["--pretty", "format"]),
        ])
    func withoutColour(environment: [String: String], extra: [String]) async throws {
        try await withServer { server in
            let run = await courierOnTerminal(["fetch", answering(Self.body, on: server)] + extra, environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == Self.indented)
        }
    }

    @Test("an empty NO_COLOR leaves colours on; --pretty all brings them back under NO_COLOR")
    func colourChoices() async throws {
        try await withServer { server in
            let url = answering(Self.body, on: server)
            for (environment, extra) in [(["NO_COLOR": ""], [String]()), (["NO_COLOR": "1", "TERM": "dumb"], ["--pretty", "all"])] {
                let run = await courierOnTerminal(["fetch", url] + extra, environment: environment)
                #expect(run.stdout.contains("\u{1B}["), "\(environment) \(extra)")
                #expect(withoutColors(run.stdout) == Self.indented)
            }
        }
    }

    @Test("--pretty colors: coloured, the layout as sent; --pretty none: the body's bytes")
    func colorsAndNone() async throws {
        try await withServer { server in
            let url = answering(" [1, {\"a\" :\t\"b\"}]\n", on: server)
            let colors = await courierOnTerminal(["fetch", url, "--pretty", "colors"])
            #expect(colors.stdout.contains("\u{1B}["))
            #expect(withoutColors(colors.stdout) == " [1, {\"a\" :\t\"b\"}]\n")
            let none = await courierOnTerminal(["fetch", url, "--pretty", "none"])
            #expect(none.raw == Data(" [1, {\"a\" :\t\"b\"}]\n".utf8))
        }
    }

    @Test(
        "bodies that are not JSON, or not valid JSON, are printed as received",
        arguments: [
            ("{\"a\": 1", "application/json"), ("{\"a\": 1}", "text/plain"), ("[1,]", "application/problem+json"),
            ("\"a\u{1B}[2Jb\"", "application/json"), ("{\"a\":1} {\"b\":2}", "application/json"),
        ])
    func asReceived(body: String, type: String) async throws {
        try await withServer { server in
            let run = await courierOnTerminal(["fetch", answering(body, type: type, on: server)])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.raw == Data(body.utf8))
        }
    }

    @Test("a +json media type with parameters is laid out")
    func suffixedMediaType() async throws {
        try await withServer { server in
            let run = await courierOnTerminal(["fetch", answering("{\"a\":[1]}", type: "application/vnd.api+json; charset=utf-8", on: server)])
            #expect(withoutColors(run.stdout) == "{\n  \"a\": [\n    1\n  ]\n}\n")
        }
    }

    @Test("characters that could drive the terminal inside strings are shown as JSON escapes, outside any colour")
    func hostileStrings() async throws {
        try await withServer { server in
            let body = "{\"k\u{202E}ey\": \"a\u{9B}2J\u{7F}b\\u001b[31m\"}"
            let run = await courierOnTerminal(["fetch", answering(body, on: server)])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(withoutColors(run.stdout) == "{\n  \"k\\u202Eey\": \"a\\u009B2J\\u007Fb\\u001b[31m\"\n}\n")
            let controls = withoutColors(run.stdout).unicodeScalars.filter { PrintableText.needsEscaping($0) && $0 != "\n" }
            #expect(controls.isEmpty)
        }
    }

    @Test("-o on a terminal: the file holds the body's bytes")
    func fileUnchanged() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer { server in
            let path = folder.appendingPathComponent("body.json").path
            let run = await courierOnTerminal(["fetch", answering(Self.body, on: server), "-o", path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.raw.isEmpty)
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(written == Data(Self.body.utf8))
        }
    }

    @Test("with --cache the body is laid out too, and the stored body stays as received")
    func cachedPath() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer { server in
            let url = answering(Self.body, on: server)
            let run = await courierOnTerminal(["fetch", url, "--cache", folder.path, "--pretty", "format"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == Self.indented)
            let piped = await courier("fetch", url, "--cache", folder.path)
            #expect(piped.raw == Data(Self.body.utf8))
        }
    }

    @Test("-i on a terminal: the status line and field names coloured, the body after them; piped: no colour")
    func head() async throws {
        try await withServer { server in
            let url = answering("[1]", on: server)
            let run = await courierOnTerminal(["fetch", "-i", url])
            #expect(run.stdout.hasPrefix("\u{1B}[34mHTTP/1.1\u{1B}[0m \u{1B}[1;32m200 OK\u{1B}[0m\r\n"), "\(run.stdout.debugDescription)")
            #expect(run.stdout.contains("\u{1B}[36mContent-Type\u{1B}[0m: application/json\r\n"))
            #expect(withoutColors(run.stdout).hasSuffix("\r\n\r\n[\n  1\n]\n"))
            let piped = await courier("fetch", "-i", url)
            #expect(piped.stdout.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(!piped.stdout.contains("\u{1B}"))
            #expect(piped.stdout.hasSuffix("\r\n\r\n[1]"))
        }
    }
}
