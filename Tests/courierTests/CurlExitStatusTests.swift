import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// Whether an error line reads as a sentence for a person: no Swift type or member names, no
/// enum case names, no `Optional(…)`, no dump of the transport's own errors.
func readsAsPlainWords(_ line: String) -> Bool {
    let forbidden = ["CourierError", "Optional(", "NIO", "IOError", "errno", "underlying", "ECONN", "HTTPClientError", "Kind."]
    if forbidden.contains(where: line.contains) { return false }
    // A `Type.member` or a camelCase case name such as `connectionFailed`.
    let patterns = [#"\b[A-Z][a-z]+[A-Z][a-z]"#, #"\b[A-Z][A-Za-z]+\.[a-z][A-Za-z]+"#, #"\b[a-z]+[A-Z][A-Za-z]*\b"#]
    return !patterns.contains { line.range(of: $0, options: .regularExpression) != nil }
}

/// The command's exit statuses (Swift Testing has an `ExitStatus` of its own).
private typealias CLIStatus = courier.ExitStatus

@Suite("courier: curl's exit statuses, and error lines a person understands")
struct CurlExitStatusTests {
    /// Expects `run` to have ended with `status` and one error line that starts with
    /// `courier: ` and `prefix`, and reads as plain words.
    func expectFailure(
        _ run: (status: Int32, stdout: String, stderr: String, raw: Data), _ status: courier.ExitStatus, startingWith prefix: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(run.status == status.rawValue, "\(run.status): \(run.stderr)", sourceLocation: sourceLocation)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.hasPrefix("courier: " + prefix), "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(readsAsPlainWords(run.stderr), "\(run.stderr)", sourceLocation: sourceLocation)
    }

    @Test("a refused port is 7 (failed to connect), naming host:port and what to check")
    func refusedPort() async throws {
        // Bound but never listened on: connections are refused, and no other test's server
        // can take the port meanwhile.
        let reserved = try ReservedPort()
        defer { withExtendedLifetime(reserved) {} }
        let run = await courier("fetch", reserved.url("/get").absoluteString)
        expectFailure(run, .couldNotConnect, startingWith: "could not connect to 127.0.0.1:\(reserved.port): connection refused (is the server running on that port?)")
    }

    @Test("a failure after retries says how many times the request was sent")
    func retriedFailureCountsItsAttempts() async throws {
        let reserved = try ReservedPort()
        defer { withExtendedLifetime(reserved) {} }
        let run = await courier("fetch", reserved.url("/get").absoluteString, "--retry", "1")
        expectFailure(run, .couldNotConnect, startingWith: "could not connect to 127.0.0.1:\(reserved.port): connection refused")
        #expect(run.stderr.contains("(after 2 attempts)"), "\(run.stderr)")
    }

    @Test("a name that does not resolve is 6 (could not resolve host), naming the host")
    func unresolvableName() async throws {
        // RFC 6761: names under .invalid never resolve.
        let run = await courier("fetch", "http://courier-test.invalid:8080/get", "--connect-timeout", "30")
        expectFailure(run, .hostNotFound, startingWith: "could not resolve host courier-test.invalid: ")
    }

    @Test("--fail on a 404 is 22 (HTTP error), naming the host and the status")
    func failOn404() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/status/404").absoluteString, "--fail")
            expectFailure(run, .httpError, startingWith: "127.0.0.1:\(server.port) answered 404 ")
            #expect(run.stdout.isEmpty)
            let withBody = await courier("fetch", server.url("/status/404").absoluteString, "--fail-with-body")
            #expect(withBody.status == 22)
        }
    }

    @Test("a timeout is 28 (operation timed out), naming the host and the option to raise")
    func timeout() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/gate/silent").absoluteString, "--max-time", "0.2")
            expectFailure(run, .timeout, startingWith: "the request to 127.0.0.1:\(server.port) timed out")
            #expect(run.stderr.contains("--max-time"))
        }
    }

    @Test("--max-filesize exceeded is 63 (maximum file size exceeded)", arguments: [[], ["--report", "json"]])
    func maxFilesize(_ extra: [String]) async throws {
        try await withServer { server in
            let run = await courier(["fetch", server.url("/bytes/100").absoluteString, "--max-filesize", "10"] + extra)
            expectFailure(run, .fileTooLarge, startingWith: "")
            #expect(run.stderr.contains("--max-filesize"))
        }
    }

    @Test("a malformed response is 8 (weird server reply), naming host:port")
    func malformedResponse() async throws {
        try await expectFetch(from: .malformedStatusLine, fails: .malformedResponse, saying: "sent a response that breaks HTTP's rules")
    }

    @Test("a connection closed without a reply is 52 (empty reply); closed mid-body, 18 (partial file)")
    func closedConnections() async throws {
        try await expectFetch(from: .closeBeforeResponse, fails: .emptyReply, saying: "closed the connection without sending a response")
        try await expectFetch(from: .closeMidBody, fails: .partialBody, saying: "closed the connection before the body was complete")
    }

    /// Runs `courier fetch` against a server with `fault` and expects `status`, with a message
    /// that names the server's host and port and goes on with `text`; stops the server.
    private func expectFetch(
        from fault: FaultServer.Fault, fails status: courier.ExitStatus, saying text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let server = try await FaultServer.start(fault)
        let run = await courier("fetch", server.url.absoluteString)
        try? await server.shutdown()
        expectFailure(run, status, startingWith: "127.0.0.1:\(server.port) \(text)", sourceLocation: sourceLocation)
    }

    @Test("a final 401 is delivered as in curl: 0, and 22 with --fail; the wrong password is sent once")
    func refusedCredentials() async throws {
        try await withServer { server in
            let url = server.url("/basic-auth/ada/right").absoluteString
            let run = await courier("fetch", url, "-u", "ada:wrong", "-i")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.hasPrefix("HTTP/1.1 401 "))
            #expect(run.stderr.isEmpty)
            #expect(server.credentialedRequests(under: "/basic-auth") == 1)
            let failed = await courier("fetch", url, "-u", "ada:wrong", "--fail")
            expectFailure(failed, .httpError, startingWith: "127.0.0.1:\(server.port) answered 401 ")
            #expect(!failed.stderr.contains("wrong"))
        }
    }

    @Test("a URL of another protocol is 1 (unsupported protocol); a malformed one is 3", arguments: ["fetch", "download"])
    func urls(_ command: String) async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = ["-o", folder.appendingPathComponent("x").path]
        let ftp = await courier([command, "ftp://127.0.0.1/file"] + output)
        expectFailure(ftp, .unsupportedProtocol, startingWith: "ftp:// is not a protocol courier speaks")
        let malformed = await courier([command, "http://"] + output)
        #expect(malformed.status == CLIStatus.malformedURL.rawValue, "\(malformed.stderr)")
        #expect(readsAsPlainWords(malformed.stderr), "\(malformed.stderr)")
    }

    @Test("every status of the table is curl's number where curl has the case, and Courier's own from 110 up")
    func numbers() {
        let curl: [courier.ExitStatus: Int32] = [
            .unsupportedProtocol: 1, .invalidInput: 2, .malformedURL: 3, .proxyNotFound: 5, .hostNotFound: 6, .couldNotConnect: 7,
            .malformedResponse: 8, .partialBody: 18, .httpError: 22, .writeError: 23, .readError: 26, .timeout: 28, .rangeError: 33,
            .tlsHandshake: 35, .tooManyRedirects: 47, .emptyReply: 52, .receiveFailed: 56, .localCertificate: 58, .peerCertificate: 60,
            .contentEncoding: 61, .fileTooLarge: 63, .caCertificateFile: 77, .pinMismatch: 90, .authenticationError: 94, .clientCertificate: 98,
        ]
        for (status, number) in curl { #expect(status.rawValue == number, "\(status)") }
        for own: courier.ExitStatus in [.integrity, .queue, .queueNotEmpty, .unexpected] { #expect(own.rawValue >= 110 && own.rawValue < 126) }
    }
}
