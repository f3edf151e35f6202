import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// One failure run through one command, and the status CLI.md's table gives it. In
/// `arguments`: `HTTP` is a test server's base URL, `HTTPS` the same port spoken to with TLS,
/// `REFUSED` a port that refuses connections, `MALFORMED` a server that breaks HTTP framing,
/// `EMPTY` a server that closes every connection without a response,
/// `FOLDER` a scratch folder, and `BATCH` a batch file of one request to `batchURL`.
struct FailureCase: Sendable, CustomTestStringConvertible {
    let arguments: [String]
    let batchURL: String?
    /// The expected exit status.
    let status: Int32

    var testDescription: String {
        let batch = batchURL.map { " (\($0))" } ?? ""
        return "\(status): courier \(arguments.joined(separator: " "))\(batch)"
    }

    static func each(_ status: courier.ExitStatus, _ commands: [[String]], batch: String? = nil) -> [FailureCase] {
        commands.map { FailureCase(arguments: $0, batchURL: batch, status: status.rawValue) }
    }

    static let table: [FailureCase] = [
        each(
            .couldNotConnect,
            [
                ["fetch", "REFUSED/get"], ["fetch", "REFUSED/get", "--report", "json"], ["download", "REFUSED/get", "-o", "FOLDER/x", "--attempts", "1"],
                ["batch", "BATCH"],
            ], batch: "REFUSED/get"),
        each(
            .timeout,
            [
                ["fetch", "HTTP/gate/silent", "--timeout", "0.2"], ["fetch", "HTTP/gate/silent", "--timeout", "0.2", "--report", "json"],
                ["download", "HTTP/gate/silent", "--timeout", "0.2", "--attempts", "1", "-o", "FOLDER/x"], ["batch", "BATCH", "--timeout", "0.2"],
            ], batch: "HTTP/gate/silent"),
        each(.tlsHandshake, [["fetch", "HTTPS/get"], ["download", "HTTPS/get", "-o", "FOLDER/x", "--attempts", "1"], ["batch", "BATCH"]], batch: "HTTPS/get"),
        each(.httpError, [["fetch", "HTTP/status/404", "--fail"], ["fetch", "HTTP/status/404", "--fail", "--report", "json"], ["download", "HTTP/status/404", "-o", "FOLDER/x"], ["batch", "BATCH", "--fail"]], batch: "HTTP/status/404"),
        each(
            .tooManyRedirects,
            [
                ["fetch", "HTTP/redirect/3", "--max-redirects", "1"], ["download", "HTTP/redirect/3", "--max-redirects", "1", "-o", "FOLDER/x"],
                ["batch", "BATCH", "--max-redirects", "1"],
            ], batch: "HTTP/redirect/3"),
        each(.malformedResponse, [["fetch", "MALFORMED/"], ["download", "MALFORMED/", "-o", "FOLDER/x", "--attempts", "1"], ["batch", "BATCH"]], batch: "MALFORMED/"),
        each(
            .fileTooLarge,
            [
                ["fetch", "HTTP/bytes/100", "--max-filesize", "10"], ["fetch", "HTTP/stream-bytes/100", "--max-filesize", "10"],
                ["fetch", "HTTP/bytes/100", "--max-filesize", "10", "--report", "json"], ["fetch", "HTTP/bytes/100", "--max-filesize", "10", "--cache", "FOLDER/cache"],
                ["download", "HTTP/bytes/100", "--max-filesize", "10", "-o", "FOLDER/x"], ["download", "HTTP/stream-bytes/100", "--max-filesize", "10", "--dir", "FOLDER"],
            ]),
        each(.integrity, [["download", "HTTP/range/64?seed=1&header=Repr-Digest:sha-256=:AAAA:", "-o", "FOLDER/x"]]),
        each(.emptyReply, [["fetch", "EMPTY/"], ["download", "EMPTY/", "-o", "FOLDER/x", "--attempts", "1"], ["batch", "BATCH"]], batch: "EMPTY/"),
        each(.queue, [["queue", "drop", "no-such-id", "--queue", "FOLDER/q.sqlite"], ["queue", "retry", "no-such-id", "--queue", "FOLDER/q.sqlite"]]),
        each(
            .invalidInput,
            [
                ["fetch", "HTTP/get", "-H", "no colon"], ["download", "HTTP/get", "-H", "no colon", "-o", "FOLDER/x"],
                ["queue", "run", "--queue", "FOLDER/q.sqlite", "-H", "no colon"],
                ["fetch", "HTTP/get", "--timeout", "-1"], ["download", "HTTP/get", "--timeout", "nan"], ["batch", "BATCH", "--timeout", "inf"],
                ["queue", "run", "--deadline", "0"], ["batch", "BATCH", "--concurrency", "0"], ["download", "HTTP/get", "--attempts", "0"],
                ["fetch", "HTTP/get", "--no-such-option"], ["download", "HTTP/get", "--no-such-option"], ["batch", "BATCH", "--no-such-option"],
                ["queue", "list", "--no-such-option"], ["queue", "run", "--no-such-option"], ["cache", "stats", "--no-such-option"], ["demo", "--no-such-option"],
                ["fetch"], ["download"], ["batch"], ["queue", "drop"], ["cache", "stats"], ["no-such-command"],
                ["download", "HTTP/get", "-o", "FOLDER/x", "--dir", "FOLDER"], ["fetch", "HTTP/get", "--report", "xml"], ["batch", "BATCH", "--mode", "sometimes"],
            ]),
        each(
            .unsupportedProtocol, [["fetch", "ftp://127.0.0.1/x"], ["download", "ftp://127.0.0.1/x", "-o", "FOLDER/x"], ["batch", "BATCH"]],
            batch: "ftp://127.0.0.1/x"),
        each(.malformedURL, [["fetch", "http://"], ["download", "http://", "-o", "FOLDER/x"], ["fetch", "relative/path"]]),
        each(.writeError, [["fetch", "HTTP/get", "-o", "FOLDER/missing/x"], ["download", "HTTP/get", "-o", "FOLDER"]]),
        each(.readError, [["fetch", "HTTP/put", "-T", "FOLDER/missing"], ["batch", "FOLDER/missing.json"]]),
        each(.caCertificateFile, [["fetch", "HTTPS/get", "--cacert", "FOLDER/missing.pem"]]),
    ].flatMap { $0 }
}

@Suite("courier: one exit status per failure, whatever the command")
struct ExitStatusTableTests {
    @Test("each failure class gives CLI.md's status and one stderr line in every command", arguments: FailureCase.table)
    func table(_ failure: FailureCase) async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reserved = try ReservedPort()
        let malformed = try await FaultServer.start(.malformedStatusLine)
        defer { Task { try? await malformed.shutdown() } }
        let empty = try await FaultServer.start(.closeBeforeResponse)
        defer { Task { try? await empty.shutdown() } }
        try await withServer { server in
            let base = server.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            let replacements = [
                ("HTTPS", "https://127.0.0.1:\(server.port)"), ("HTTP", base), ("REFUSED", "http://127.0.0.1:\(reserved.port)"),
                ("MALFORMED", "http://127.0.0.1:\(malformed.port)"), ("EMPTY", "http://127.0.0.1:\(empty.port)"), ("FOLDER", folder.path),
            ]
            func expand(_ text: String) -> String {
                for (token, value) in replacements where text.hasPrefix(token) { return value + String(text.dropFirst(token.count)) }
                return text
            }
            var arguments = failure.arguments.map(expand)
            if let batchURL = failure.batchURL, let index = arguments.firstIndex(of: "BATCH") {
                let file = folder.appendingPathComponent("requests.json")
                try Data("[{\"url\": \"\(expand(batchURL))\"}]".utf8).write(to: file)
                arguments[index] = file.path
            }
            let run = await courier(arguments)
            withExtendedLifetime(reserved) {}
            #expect(run.status == failure.status, "\(arguments) → \(run.status): \(run.stderr)")
            // One failure line, the last (warnings, and a download's plain progress lines, come before it).
            let lines = run.stderr.split(separator: "\n")
            let failures = lines.filter { $0.hasPrefix("courier: ") && !$0.hasPrefix("courier: warning: ") }
            #expect(failures.count == 1 && failures.last == lines.last, "\(run.stderr)")
        }
    }

    @Test(
        "a batch file with a bad request anywhere is refused before any request is sent",
        arguments: [
            #"{"url": "ftp://127.0.0.1/x"}"#, #"{"url": "/x", "headers": {"X-Bad": "a\r\nInjected: 1"}}"#, #"{"url": "/x", "headers": {"Bad Name": "a"}}"#,
            #"{"url": "/x", "method": "GET /x HTTP/1.1\r\nX:"}"#, #"{"url": "/x", "headers": {"X-Nul": "a\u0000b"}}"#,
        ])
    func badBatchRequest(_ bad: String) async throws {
        try await withServer { server in
            let good = "{\"url\": \"\(server.url("/get").absoluteString)\"}"
            let path = try batchFile("[\(good), \(good), \(bad)]")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let run = await courier("batch", path, "--base-url", server.baseURL.absoluteString, "--concurrency", "1")
            // A URL of another protocol is curl's unsupported protocol; the rest are usage errors.
            let expected: courier.ExitStatus = bad.contains("ftp:") ? .unsupportedProtocol : .invalidInput
            #expect(run.status == expected.rawValue, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("courier: \(path), request 2: ") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(!run.stderr.unicodeScalars.contains { PrintableText.needsEscaping($0) && $0 != "\n" })
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test(
        "Ctrl-C (the command's task cancelled) ends every command with 130 and one line, and -o leaves nothing",
        arguments: [
            ["fetch", "HTTP/get"], ["fetch", "HTTP/get", "--report", "json"], ["fetch", "HTTP/get", "-o", "FOLDER/x"],
            ["fetch", "HTTP/get", "--cache", "FOLDER/cache"], ["batch", "BATCH"], ["batch", "BATCH", "--mode", "settle"],
            ["download", "HTTP/get", "-o", "FOLDER/x"],
        ])
    func interrupted(_ template: [String]) async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer { server in
            let url = server.url("/get").absoluteString
            let batch = folder.appendingPathComponent("requests.json")
            try Data("[{\"url\": \"\(url)\"}, {\"url\": \"\(url)\"}]".utf8).write(to: batch)
            let arguments = template.map {
                $0.replacingOccurrences(of: "HTTP/get", with: url).replacingOccurrences(of: "FOLDER", with: folder.path)
                    .replacingOccurrences(of: "BATCH", with: batch.path)
            }
            let (output, captured) = Output.capturing()
            // Interrupted as it starts: what SIGINT does to the command's task, without racing
            // the exchange.
            let run = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await CourierCLI.run(arguments, output: output)
            }
            let status = await run.value
            #expect(status == ExitStatus.interrupted.rawValue, "\(arguments): \(captured.stderr)")
            let lines = captured.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines.first?.hasPrefix("courier: ") == true, "\(captured.stderr)")
            #expect(server.receivedRequests.isEmpty)
            if template.contains("-o") && template.first == "fetch" {
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["requests.json"])
            }
        }
    }

    @Test("SIGINT reaches the running command: the process exits 130, not killed by the signal")
    func sigint() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let queue = folder.appendingPathComponent("q.sqlite").path
        let reserved = try ReservedPort()
        // A queue whose one record cannot be delivered: `queue run` waits and tries again until
        // its deadline, far away, or until SIGINT.
        let queued = await courier("fetch", reserved.url("/x").absoluteString, "--data", "x", "--durable", "--queue", queue)
        #expect(queued.stdout.hasPrefix("queued "), "\(queued.stderr)")
        let child = try ChildProcess.launch(["queue", "run", "--queue", queue, "--deadline", "120"])
        try await Task.sleep(for: .milliseconds(500))
        kill(child.process.processIdentifier, SIGINT)
        let (status, _) = try await child.finish(within: 60)
        withExtendedLifetime(reserved) {}
        #expect(child.process.terminationReason == .exit)
        #expect(status == ExitStatus.interrupted.rawValue)
    }
}
