import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// Whether `text` holds a character a terminal could take for a command, or that reorders text.
private func hasRawControls(_ text: String) -> Bool {
    text.unicodeScalars.contains { PrintableText.needsEscaping($0) && $0 != "\n" }
}

/// A server whose every answer is hostile: a reason phrase that reorders text and clears the
/// screen (AsyncHTTPClient drops it; Courier's own channels may keep it), header values with
/// C1 and bidi controls, a file name with a right-to-left override. C1 and bidi characters are
/// UTF-8 bytes, which HTTP parsers accept.
private func hostileServer(status: Int = 499, extra: String = "") async throws -> FaultServer {
    let head =
        "HTTP/1.1 \(status) Not\u{202E}dnuoF\u{9B}2J\r\n"
        + "X-Evil: a\u{9B}31mred\u{202E}b\u{2066}c\r\n"
        + "Content-Disposition: attachment; filename*=UTF-8''evil%E2%80%AEgpj.exe\r\n"
        + extra
        + "Content-Length: 4\r\nConnection: close\r\n\r\nbody"
    return try await FaultServer.start(.raw(Array(head.utf8)))
}

/// A hostile server and a scratch folder; the caller stops the one and removes the other.
private func hostileServerAndFolder(status: Int = 499) async throws -> (FaultServer, URL) {
    (try await hostileServer(status: status), try scratchFolder())
}

@Suite("courier: text from the network is escaped in every message")
struct TerminalSafetyTests {
    @Test("fetch --fail-with-body -i -v: head lines, verbose lines and the error line are escaped; the body is not")
    func fetch() async throws {
        let server = try await hostileServer()
        defer { Task { try? await server.shutdown() } }
        let run = await courier("fetch", server.url.absoluteString, "--fail-with-body", "-i", "-v")
        #expect(run.status == ExitStatus.httpError.rawValue, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("\r\n\r\nbody"))
        #expect(!hasRawControls(run.stdout.replacingOccurrences(of: "\r\n", with: "\n")), "\(run.stdout.debugDescription)")
        #expect(run.stdout.contains("X-Evil: a\\u{9B}31mred\\u{202E}b\\u{2066}c"))
        #expect(!hasRawControls(run.stderr), "\(run.stderr.debugDescription)")
        #expect(run.stderr.contains("< X-Evil: a\\u{9B}31mred\\u{202E}b\\u{2066}c"))
        let failures = run.stderr.split(separator: "\n").filter { $0.hasPrefix("courier: ") }
        #expect(failures.count == 1)
    }

    @Test("the JSON report stays valid JSON, escapes every control as \\uXXXX and keeps the values")
    func report() async throws {
        let server = try await hostileServer()
        defer { Task { try? await server.shutdown() } }
        let run = await courier("fetch", server.url.absoluteString, "--report", "json")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!hasRawControls(run.stdout), "\(run.stdout.debugDescription)")
        #expect(run.stdout.contains("\\u202e"))
        let object = try courierTests.report(run.stdout.trimmingCharacters(in: .newlines))
        let headers = try #require(object["headers"] as? [[String]])
        #expect(headers.first { $0[0] == "X-Evil" }?[1] == "a\u{9B}31mred\u{202E}b\u{2066}c")
        #expect(Report.quote("\u{0}\u{1B}\u{7F}\u{85}\u{202E}\u{2028}") == "\"\\u0000\\u001b\\u007f\\u0085\\u202e\\u2028\"")
    }

    @Test("batch lines, plain and JSON, and the failure line are escaped")
    func batch() async throws {
        let server = try await hostileServer()
        defer { Task { try? await server.shutdown() } }
        let path = try batchFile("[{\"url\": \"\(server.url.absoluteString)\"}]")
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A 499 is a failure only with --fail; either way every line is clean.
        let plain = await courier("batch", path, "--fail")
        #expect(plain.status == ExitStatus.httpError.rawValue, "\(plain.stderr)")
        #expect(!hasRawControls(plain.stdout) && !hasRawControls(plain.stderr), "\(plain.stdout.debugDescription) \(plain.stderr.debugDescription)")
        #expect(plain.stderr.split(separator: "\n").count == 1)
        let json = await courier("batch", path, "--fail", "--report", "json")
        #expect(!hasRawControls(json.stdout), "\(json.stdout.debugDescription)")
        let line = try courierTests.report(json.stdout.trimmingCharacters(in: .newlines))
        #expect((line["error"] as? [String: Any])?["kind"] as? String == "validationFailed")
    }

    @Test("download: a server file name with a bidi control is refused, and the message shows it escaped")
    func downloadName() async throws {
        let (server, folder) = try await hostileServerAndFolder(status: 200)
        defer { Task { try? await server.shutdown() } }
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = await courier("download", server.url.absoluteString, "--dir", folder.path)
        #expect(run.status == ExitStatus.writeError.rawValue, "\(run.stderr)")
        #expect(!hasRawControls(run.stderr), "\(run.stderr.debugDescription)")
        #expect(run.stderr.contains("evil\\u{202E}gpj.exe"))
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".courier-") }.isEmpty)
    }

    @Test("download: the line of a failed status is clean")
    func downloadStatus() async throws {
        let (server, folder) = try await hostileServerAndFolder()
        defer { Task { try? await server.shutdown() } }
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = await courier("download", server.url.absoluteString, "-o", folder.appendingPathComponent("x").path)
        #expect(run.status == ExitStatus.httpError.rawValue, "\(run.stderr)")
        #expect(!hasRawControls(run.stderr), "\(run.stderr.debugDescription)")
    }

    @Test("a redirect Location and a challenge realm with controls are escaped")
    func redirectAndChallenge() async throws {
        let redirect = try await FaultServer.start(
            .raw(
                Array(
                    "HTTP/1.1 302 Found\r\nLocation: ftp://h/\u{202E}x\u{9B}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8
                )))
        defer { Task { try? await redirect.shutdown() } }
        let moved = await courier("fetch", redirect.url.absoluteString, "-v")
        #expect(moved.status != 0)
        #expect(!hasRawControls(moved.stderr), "\(moved.stderr.debugDescription)")
        #expect(moved.stderr.split(separator: "\n").filter { $0.hasPrefix("courier: ") }.count == 1)

        let challenge = try await FaultServer.start(
            .raw(
                Array(
                    "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"a\u{202E}b\u{9B}c\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8
                )))
        defer { Task { try? await challenge.shutdown() } }
        let refused = await courier("fetch", challenge.url.absoluteString, "--user", "ada:lovelace", "-v", "-i")
        #expect(refused.status == ExitStatus.success.rawValue, "\(refused.stderr)")
        #expect(!hasRawControls(refused.stderr), "\(refused.stderr.debugDescription)")
        #expect(!hasRawControls(refused.stdout.replacingOccurrences(of: "\r\n", with: "\n")), "\(refused.stdout.debugDescription)")
        #expect(refused.stderr.contains("a\\u{202E}b\\u{9B}c"))
    }

    @Test("fetch --durable -i and queue list print escaped lines")
    func queue() async throws {
        let (server, folder) = try await hostileServerAndFolder(status: 498)
        defer { Task { try? await server.shutdown() } }
        defer { try? FileManager.default.removeItem(at: folder) }
        let queue = folder.appendingPathComponent("queue.sqlite").path
        let sent = await courier("fetch", server.url.absoluteString, "--data", "x", "--durable", "--queue", queue, "-i")
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(!hasRawControls(sent.stdout.replacingOccurrences(of: "\r\n", with: "\n")), "\(sent.stdout.debugDescription)")
        let list = await courier("queue", "list", "--queue", queue)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(!hasRawControls(list.stdout), "\(list.stdout.debugDescription)")
    }

    @Test("stderr lines: a message with any control is one escaped line, and stdout lines are escaped too")
    func outputChokePoints() {
        let (output, captured) = Output.capturing(terminal: true)
        output.error("courier: a\u{1B}]0;x\u{7}b\r\nc\u{202E}")
        output.line("queued \u{9B}\u{2067}")
        output.progress?("1 of 2 done\u{1B}[K\n")
        #expect(captured.stderr == "courier: a\\u{1B}]0;x\\u{7}b c\\u{202E}\n")
        #expect(captured.stdout == "queued \\u{9B}\\u{2067}\n")
        #expect(captured.progress == ["1 of 2 done\\u{1B}[K\n"])
    }
}
