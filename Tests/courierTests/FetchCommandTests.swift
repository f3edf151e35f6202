import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// Runs `courier ARGS…` in-process; returns the exit status and what it printed.
func courier(_ arguments: String...) async -> (status: Int32, stdout: String, stderr: String, raw: Data) {
    await courier(arguments)
}

/// Runs `courier ARGS…` in-process, the arguments given as an array.
///
/// Unless a test gives an environment of its own, the command sees the process's without its
/// proxy variables (`http_proxy`, `NO_PROXY`, …), which courier honours as curl does: the
/// in-process servers are reached directly on any machine.
func courier(_ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String, raw: Data) {
    let (output, captured) = Output.capturing()
    let environment = CourierCLI.environment ?? ProcessInfo.processInfo.environment.filter { !$0.key.lowercased().hasSuffix("_proxy") }
    let status = await CourierCLI.$environment.withValue(environment) { await CourierCLI.run(arguments, output: output) }
    return (status, captured.stdout, captured.stderr, captured.data)
}

func withServer<T>(_ body: (TestServer) async throws -> T) async throws -> T {
    try await TestServer.withServer(body)
}

/// Parses one report line.
func report(_ line: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
    return try #require(object as? [String: Any])
}

@Suite("courier fetch")
struct FetchCommandTests {
    @Test func reportIsOneJSONObjectWithTheContractsKeysInOrder() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/response-headers?X-A=1&X-A=2").absoluteString, "--report", "json")
            #expect(run.status == 0)
            let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2 && lines[1].isEmpty, "exactly one line, newline-terminated")
            let line = String(lines[0])
            #expect(line.hasPrefix("{\"status\":200,\"headers\":[["))
            let keys = ["\"status\":", "\"headers\":", "\"body_base64\":", "\"url\":", "\"redirects\":", "\"source\":"]
            let positions = keys.map { line.range(of: $0)?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil })
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
            let object = try report(line)
            #expect(object["status"] as? Int == 200)
            #expect(object["redirects"] as? Int == 0)
            #expect(object["source"] as? String == "network")
            #expect(object["url"] as? String == server.url("/response-headers?X-A=1&X-A=2").absoluteString)
            let headers = try #require(object["headers"] as? [[String]])
            #expect(headers.filter { $0[0].lowercased() == "x-a" }.map { $0[1] } == ["1", "2"])
            let body = try #require(Data(base64Encoded: object["body_base64"] as? String ?? ""))
            let json = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            #expect(json != nil)
        }
    }

    @Test func reportCountsRedirectsAndNamesTheFinalURL() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/redirect/2").absoluteString, "--report", "json")
            let object = try report(run.stdout.trimmingCharacters(in: .newlines))
            #expect(object["redirects"] as? Int == 2)
            #expect(object["url"] as? String == server.url("/get").absoluteString)
            let noFollow = await courier("fetch", server.url("/redirect/2").absoluteString, "--no-follow", "--report", "json")
            let first = try report(noFollow.stdout.trimmingCharacters(in: .newlines))
            #expect(first["status"] as? Int == 302)
            #expect(first["redirects"] as? Int == 0)
        }
    }

    @Test func binaryBodiesSurviveTheReport() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/bytes/3000?seed=9").absoluteString, "--report", "json")
            let object = try report(run.stdout.trimmingCharacters(in: .newlines))
            let body = Data(base64Encoded: object["body_base64"] as? String ?? "")
            #expect(body == Data(TestServer.bytes(count: 3000, seed: 9)))
        }
    }

    @Test func optionsShapeTheRequest() async throws {
        try await withServer { server in
            let run = await courier(
                "fetch", "/anything/x", "--base-url", server.url("/").absoluteString,
                "-X", "PUT", "-H", "X-One: 1", "-H", "X-Two:  two ", "--query", "a=b c", "--query", "flag",
                "--json", "{\"k\":1}", "--report", "json"
            )
            #expect(run.status == 0, "\(run.stderr)")
            let request = try #require(server.receivedRequests.last)
            #expect(request.method == "PUT")
            #expect(request.uri == "/anything/x?a=b%20c&flag")
            #expect(request.header("X-One") == "1")
            #expect(request.header("X-Two") == "two")
            #expect(request.header("Content-Type") == "application/json")
            #expect(request.bodyString == "{\"k\":1}")
        }
    }

    @Test func dataFromAFileAndFormFields() async throws {
        try await withServer { server in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-data-\(UUID().uuidString)")
            try Data("file body\n".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let fromFile = await courier("fetch", server.url("/post").absoluteString, "--data-binary", "@\(file.path)")
            #expect(fromFile.status == 0)
            #expect(server.receivedRequests.last?.method == "POST")
            #expect(server.receivedRequests.last?.bodyString == "file body\n")
            // --data is curl's -d: a form body, line breaks of the file removed.
            let stripped = await courier("fetch", server.url("/post").absoluteString, "--data", "@\(file.path)")
            #expect(stripped.status == 0)
            #expect(server.receivedRequests.last?.bodyString == "file body")
            #expect(server.receivedRequests.last?.header("Content-Type") == "application/x-www-form-urlencoded")
            // --form is curl's -F: always multipart.
            let form = await courier("fetch", server.url("/post").absoluteString, "--form", "a=1 2", "--form", "b=&")
            #expect(form.status == 0)
            #expect(server.receivedRequests.last?.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
            #expect(server.receivedRequests.last?.bodyString.contains("name=\"a\"\r\n\r\n1 2\r\n") == true)
            #expect(server.receivedRequests.last?.bodyString.contains("name=\"b\"\r\n\r\n&\r\n") == true)
        }
    }

    @Test func includeAndOutputFile() async throws {
        try await withServer { server in
            let included = await courier("fetch", server.url("/response-headers?X-Shown=yes").absoluteString, "-i")
            #expect(included.stdout.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(included.stdout.contains("X-Shown: yes\r\n"))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-out-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            let saved = await courier("fetch", server.url("/bytes/100").absoluteString, "-o", file.path)
            #expect(saved.status == 0)
            #expect(saved.stdout.isEmpty)
            let written = try Data(contentsOf: file)
            #expect(written == Data(TestServer.bytes(count: 100)))
        }
    }
}

@Suite("Files courier writes are its user's alone")
struct OutputFileModeTests {
    @Test func everyBodyWrittenToAFileIsMode0600EvenWhereAWiderFileWas() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-modes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("cache").path
        let runs: [(name: String, arguments: [String])] = [
            ("streamed.bin", ["fetch", "/bytes/100"]),
            ("stored.bin", ["fetch", "/bytes/100", "--cache", cache]),
            ("downloaded.bin", ["download", "/bytes/100"]),
        ]
        try await withServer { server in
            for (name, arguments) in runs {
                let path = folder.appendingPathComponent(name).path
                // A file someone else could read is there already: it is replaced, not reused.
                #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o644]))
                let full = [arguments[0], server.url(arguments[1]).absoluteString] + arguments.dropFirst(2) + ["-o", path]
                let run = await courier(full + (arguments[0] == "download" ? ["--overwrite"] : []))
                #expect(run.status == 0, "\(full): \(run.stderr)")
                #expect(FileManager.default.contents(atPath: path) == Data(TestServer.bytes(count: 100)), "\(full)")
                #expect(PrivateFiles.permissions(of: path) == 0o600, "\(full)")
            }
        }
    }
}

@Suite("courier exit statuses")
struct ExitStatusTests {
    @Test func httpErrorsOnlyFailUnderFail() async throws {
        try await withServer { server in
            let plain = await courier("fetch", server.url("/status/404").absoluteString, "--report", "json")
            #expect(plain.status == 0)
            let failing = await courier("fetch", server.url("/status/503").absoluteString, "--fail", "--report", "json")
            #expect(failing.status == 22)
            let status = try report(failing.stdout.trimmingCharacters(in: .newlines))["status"] as? Int
            #expect(status == 503)
            #expect(failing.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test(arguments: [
        ["fetch", "http://127.0.0.1:9/", "-H", "no colon"],
        ["fetch", "http://127.0.0.1:9/", "--data", "a", "--json", "{}"],
        ["fetch", "http://127.0.0.1:9/", "--no-such-option"],
        ["fetch", "http://127.0.0.1:9/", "-H", "X-Bad: a\r\nInjected: 1"],
        ["fetch", "http://127.0.0.1:9/", "--timeout", "-1"],
        ["fetch", "http://127.0.0.1:9/", "--base-url", "not a url"],
        ["no-such-command"],
    ])
    func invalidInputIsStatus2(arguments: [String]) async {
        let (output, captured) = Output.capturing()
        let status = await CourierCLI.run(arguments, output: output)
        #expect(status == 2, "\(arguments) → \(status): \(captured.stderr)")
        #expect(!captured.stderr.isEmpty)
    }

    @Test("bad input with a curl status of its own: another protocol 1, a malformed URL 3, an unreadable file 26")
    func curlStatusesOfBadInput() async {
        let cases: [([String], Int32)] = [
            (["fetch", "ftp://example.com/x"], 1), (["fetch", "/relative-without-base"], 3),
            (["fetch", "http://127.0.0.1:9/", "--data", "@/nonexistent/file"], 26),
        ]
        for (arguments, expected) in cases {
            let run = await courier(arguments)
            #expect(run.status == expected, "\(arguments) → \(run.status): \(run.stderr)")
            #expect(run.stderr.hasPrefix("courier: ") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        }
    }

    @Test func connectionFailureIsStatus7() async throws {
        let server = try await TestServer.start()
        let url = server.url("/get").absoluteString
        try await server.shutdown()
        let run = await courier("fetch", url)
        #expect(run.status == 7)
        #expect(run.stderr.hasPrefix("courier: could not connect to 127.0.0.1:"))
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    @Test func timeoutIsStatus28() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/gate/silent").absoluteString, "--timeout", "0.2")
            #expect(run.status == 28)
        }
    }

    @Test func redirectFailuresAreStatus47() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/redirect/3").absoluteString, "--max-redirects", "2")
            #expect(run.status == 47)
        }
    }

    @Test func malformedResponsesAreStatus8() async throws {
        let server = try await FaultServer.start(.malformedStatusLine)
        let run = await courier("fetch", server.url.absoluteString)
        try await server.shutdown()
        #expect(run.status == 8)
    }

    @Test func helpIsStatus0() async {
        let run = await courier("fetch", "--help")
        #expect(run.status == 0)
        #expect(run.stdout.contains("--report"))
    }
}

@Suite("courier fetch: compression and TLS")
struct FetchTransportTests {
    @Test func asksForTheRepresentationAsIsUnlessCompressed() async throws {
        try await withServer { server in
            _ = await courier("fetch", server.url("/get").absoluteString)
            #expect(server.receivedRequests.last?.header("Accept-Encoding") == "identity")
            _ = await courier("fetch", server.url("/get").absoluteString, "--compressed")
            #expect(server.receivedRequests.last?.header("Accept-Encoding") == "gzip, deflate, br, zstd")
            _ = await courier("fetch", server.url("/get").absoluteString, "-H", "Accept-Encoding: br")
            #expect(server.receivedRequests.last?.headerValues("Accept-Encoding") == ["br"])
            // A server that compresses anyway is inflated.
            let run = await courier("fetch", server.url("/gzip").absoluteString, "--report", "json")
            let object = try report(run.stdout.trimmingCharacters(in: .newlines))
            let body = try #require(Data(base64Encoded: object["body_base64"] as? String ?? ""))
            let json = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            #expect(json?["gzipped"] as? Bool == true)
            // br and zstd, alone and under gzip, are undone on both of fetch's paths.
            for coding in ["br", "zstd", "zstd,gzip"] {
                let printed = await courier("fetch", server.url("/encoded?coding=\(coding)").absoluteString, "--compressed")
                #expect(printed.status == 0 && printed.stdout == "layered body", "\(coding): \(printed.stderr)")
                let reported = await courier("fetch", server.url("/encoded?coding=\(coding)").absoluteString, "--report", "json")
                let object = try report(reported.stdout.trimmingCharacters(in: .newlines))
                #expect(Data(base64Encoded: object["body_base64"] as? String ?? "") == Data("layered body".utf8), "\(coding)")
            }
        }
    }

    @Test func tlsHandshakeFailureIsStatus35() async throws {
        // A plain HTTP server answers the TLS ClientHello with a plaintext 400: the handshake fails.
        try await withServer { server in
            let run = await courier("fetch", "https://127.0.0.1:\(server.port)/get")
            #expect(run.status == 35, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("courier: the TLS handshake with 127.0.0.1:\(server.port) failed"), "\(run.stderr)")
        }
    }
}

@Suite("courier fetch --retry")
struct FetchRetryTests {
    @Test func retriesUntilSuccess() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/flaky?failures=2&status=503&retry_after=0").absoluteString, "--retry", "2", "--report", "json")
            #expect(run.status == 0)
            let status = try report(run.stdout.trimmingCharacters(in: .newlines))["status"] as? Int
            #expect(status == 200)
            #expect(server.receivedRequests.count == 3)
            let without = await courier("fetch", server.url("/flaky?failures=1&status=503&key=b").absoluteString, "--report", "json")
            let first = try report(without.stdout.trimmingCharacters(in: .newlines))["status"] as? Int
            #expect(first == 503)
        }
    }
}

@Suite("courier against hostile status lines (child process)")
struct HostileStatusLineTests {
    @Test("a status below 100 exits with the malformed-response status instead of dying on a signal")
    func lowStatusDoesNotCrash() async throws {
        let server = try await FaultServer.start(.raw(Array("HTTP/1.1 099 Low\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi".utf8)))
        defer { Task { try? await server.shutdown() } }
        let child = try ChildProcess.launch(["fetch", "http://127.0.0.1:\(server.port)/"])
        let (status, _) = try await child.finish(within: 60)
        #expect(status == 8)
    }
}
