import ArgumentParser
import Testing

@testable import courier

/// `CourierCLI.parse` reads a line that names a subcommand with that subcommand alone, which is
/// quicker; these check that it reads every line as a parse from the root would.
@Suite("Command lines: the subcommand's own parse reads them as the root's does")
struct CommandLineParseTests {
    static let lines: [[String]] = [
        ["fetch", "http://127.0.0.1:9/a"],
        ["fetch", "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:9/a"],
        ["fetch", "-X", "PUT", "-H", "A: b", "-d", "x=1", "--data-urlencode", "q=a b", "http://127.0.0.1:9/"],
        ["fetch", "-u", "ada:pw", "-A", "agent/1", "-e", "http://ref/", "-L", "--max-time", "2.5", "http://127.0.0.1:9/"],
        ["fetch", "http://127.0.0.1:9/", "name=ada", "age:=36", "q==1", "X-A:b"],
        ["fetch", "-I", "-i", "--connect-timeout", "1", "--max-filesize", "10", "http://127.0.0.1:9/"],
        ["fetch", "--cache", "/tmp/c", "--cache-mode", "reload", "http://127.0.0.1:9/"],
        ["fetch", "-F", "a=b", "-F", "f=@/etc/hostname;type=text/plain", "http://127.0.0.1:9/"],
        ["fetch", "-b", "a=1", "-c", "/tmp/jar", "--pretty", "none", "-f", "http://127.0.0.1:9/", "n=1", "--multipart"],
        ["fetch", "--cookie-json", "/tmp/c.json", "-j", "http://127.0.0.1:9/"],
        ["queue", "run", "--queue", "/tmp/q"],
        ["download", "http://127.0.0.1:9/file", "-o", "/tmp/f", "--overwrite"],
        ["batch", "/tmp/requests.json"],
        ["cache", "stats", "--cache", "/tmp/c"],
        ["cache", "clear", "--cache", "/tmp/c"],
        ["cache"],
        ["queue", "list", "--queue", "/tmp/q"],
        ["demo"],
    ]

    @Test("a valid line gives the same command, option for option", arguments: lines)
    func sameCommand(_ line: [String]) async {
        let (quick, root) = await CourierCLI.parsing.take { (Outcome(line, CourierCLI.parse), Outcome(line, CourierCLI.parseAsRoot)) }
        #expect(quick == root)
        guard case .command = quick else {
            Issue.record("\(line) should parse: \(quick)")
            return
        }
    }

    @Test(
        "help, a version request and a usage error end as the root's do",
        arguments: [
            ["fetch", "--help"], ["fetch", "-h"], ["fetch"], ["fetch", "--no-such-option", "http://127.0.0.1:9/"],
            ["fetch", "--max-time", "nan", "http://127.0.0.1:9/"], ["cache", "stats"], ["cache", "stats", "--help"],
            ["--version"], ["fetch", "--generate-completion-script", "bash"], ["fetch", "-k", "https://127.0.0.1:9/"],
            ["download", "--tlsv1.1", "https://127.0.0.1:9/f", "-o", "/tmp/f"], ["fetch", "--pretty", "loud", "http://127.0.0.1:9/"],
        ])
    func sameFailure(_ line: [String]) async {
        let (quick, root) = await CourierCLI.parsing.take { (Outcome(line, CourierCLI.parse), Outcome(line, CourierCLI.parseAsRoot)) }
        #expect(quick == root)
        if case .command(let text) = quick {
            #expect(text.contains("HelpCommand"), "\(line) should end in help or an error: \(text)")
        }
    }

    @Test("the options that are not in groups reach the values fetch reads")
    func optionsOutsideGroups() async throws {
        let line = [
            "fetch", "--form-items", "-f", "--multipart", "--cache", "/tmp/c", "--cache-mode", "reload", "-b", "a=1", "-b", "/tmp/b", "-c", "/tmp/jar",
            "--pretty", "none", "http://127.0.0.1:9/", "n=1", "X-A:b",
        ]
        let parsed = try await CourierCLI.parsing.take { try CourierCLI.parse(line) }
        let fetch = try #require(parsed as? FetchCommand)
        #expect(fetch.items.texts == ["n=1", "X-A:b"])
        #expect(fetch.items.form && fetch.items.multipart && !fetch.items.json)
        // On fetch, -f is curl's --fail.
        #expect(fetch.fail)
        #expect(fetch.cache.folder == "/tmp/c" && fetch.cache.mode == .reload)
        #expect(fetch.client.cookies.cookies == ["a=1", "/tmp/b"] && fetch.client.cookies.cookieJar == "/tmp/jar")
        #expect(fetch.client.cookies.cookieJSON == nil)
        #expect(fetch.pretty == TerminalStyle.Pretty.none)
    }

    @Test func aMessageNamesTheWholeCommand() async {
        let outcome = await CourierCLI.parsing.take { Outcome(["fetch", "--no-such-option", "http://127.0.0.1:9/"], CourierCLI.parse) }
        guard case .failure(let message, _) = outcome else {
            Issue.record("an unknown option should fail: \(outcome)")
            return
        }
        #expect(message.contains("courier fetch"), "\(message)")
    }

    /// What a parse of a line gave: a command, dumped with all its options, or ArgumentParser's
    /// text for the error and its exit code.
    enum Outcome: Equatable {
        case command(String)
        case failure(String, Int32)

        init(_ line: [String], _ parse: ([String]) throws -> any ParsableCommand) {
            do {
                self = .command(describe(try parse(line)))
            } catch {
                self = .failure(CourierCLI.fullMessage(for: error), CourierCLI.exitCode(for: error).rawValue)
            }
        }
    }
}

/// Every stored value of a command, its options and nested groups included, as text.
private func describe(_ command: any ParsableCommand) -> String {
    var text = ""
    dump(command, to: &text)
    return text
}
