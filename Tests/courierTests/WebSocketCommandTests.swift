import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

@Suite("courier ws")
struct WebSocketCommandTests {
    /// Runs `body` with a WebSocket echo server, shut down after.
    private func withEchoServer(_ body: (WebSocketEchoServer) async throws -> Void) async throws {
        let server = try await WebSocketEchoServer.start()
        do {
            try await body(server)
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    private func courier(stdin input: String, _ arguments: String...) async -> (status: Int32, stdout: String, stderr: String, raw: Data) {
        await CourierCLI.$standardInputPieces.withValue(.bytes { Data(input.utf8) }) { await courierTests.courier(arguments) }
    }

    @Test("the lines of standard input go out as text messages and the echoes are printed; the end of the input closes")
    func linesOut() async throws {
        try await withEchoServer { server in
            let run = await courier(stdin: "hello\r\nworld\n", "ws", server.url("/echo").absoluteString, "--max-messages", "2")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == "hello\nworld\n")
            // Without --max-messages the end of the input closes with 1000.
            let closing = await courier(stdin: "", "ws", server.url("/echo").absoluteString)
            #expect(closing.status == 0, "\(closing.stderr)")
            #expect(closing.stdout.isEmpty)
            // The command ends once the server answered the close, which it records first.
            #expect(server.receivedCloseCodes.contains(1000), "\(server.receivedCloseCodes)")
        }
    }

    @Test("--send and --report json: one object per message, binary in base64; a server's close code other than 1000 is told")
    func reportJSON() async throws {
        try await withEchoServer { server in
            let run = await courier(stdin: "", "ws", server.url("/send?count=1&size=3").absoluteString, "--report", "json", "--max-messages", "1")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == "{\"type\":\"binary\",\"base64\":\"AAEC\"}\n")
            let closed = await courier(stdin: "", "ws", server.url("/close?code=4002&reason=enough").absoluteString, "--send", "a\u{1B}b", "--report", "json")
            #expect(closed.status == 0, "\(closed.stderr)")
            #expect(closed.stdout == "{\"type\":\"text\",\"data\":\"a\\u001bb\"}\n")
            #expect(closed.stderr.contains("4002: enough"), "\(closed.stderr)")
        }
    }

    @Test("a server that stops answering pings ends the command with curl's timeout status")
    func unansweredPings() async throws {
        try await withEchoServer { server in
            let run = await courier(stdin: "", "ws", server.url("/silent").absoluteString, "--ping-interval", "0.2", "--max-messages", "1")
            #expect(run.status == 28, "\(run.stderr)")
            #expect(run.stderr.contains("pings"), "\(run.stderr)")
        }
    }

    @Test("an answer other than 101 fails as --fail would; ftp:// is refused as curl refuses it")
    func refusals() async throws {
        try await withEchoServer { server in
            let refused = await courier(stdin: "", "ws", server.url("/refuse").absoluteString)
            #expect(refused.status == 22, "\(refused.stderr)")
            #expect(refused.stderr.contains("403"), "\(refused.stderr)")
            let ftp = await courier(stdin: "", "ws", "ftp://127.0.0.1/")
            #expect(ftp.status == 1)
        }
    }
}
