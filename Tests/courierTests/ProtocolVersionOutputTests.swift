import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

@Suite("courier fetch -i, -I and -v print the protocol version the response arrived over")
struct ProtocolVersionOutputTests {
    @Test("an HTTP/1.0 server: -i, -I and -v say HTTP/1.0")
    func http10() async throws {
        for flags in [["-i"], ["-I"], ["-v"]] {
            let server = try await FaultServer.start(.raw(Array("HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi".utf8)))
            defer { Task { try? await server.shutdown() } }
            let run = await courier(["fetch", server.url.absoluteString] + flags)
            #expect(run.status == 0, "\(run.stderr)")
            if flags == ["-v"] {
                #expect(run.stderr.contains("< HTTP/1.0 200 OK\n"), "\(run.stderr)")
                #expect(run.stdout == "hi")
            } else {
                #expect(run.stdout.hasPrefix("HTTP/1.0 200 OK\r\n"), "\(run.stdout)")
            }
        }
    }

    @Test("an HTTP/1.1 server: HTTP/1.1 with its reason phrase")
    func http11() async throws {
        try await withServer { server in
            let run = await courier("fetch", "-I", server.url("/status/404").absoluteString)
            #expect(run.stdout.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        }
    }

    @Test("HTTP/2 heads have no reason phrase, as curl prints them; -v says the same")
    func http2() {
        var response = Response(status: 200, reasonPhrase: "", headers: ["Content-Type": "text/plain"], url: URL(string: "https://example.test/")!)
        response.protocolVersion = .http2
        #expect(HeadText.render(response) == "HTTP/2 200\r\nContent-Type: text/plain\r\n\r\n")
        #expect(HeadText.render(response, colors: true).hasPrefix("\u{1B}[34mHTTP/2\u{1B}[0m \u{1B}[1;32m200\u{1B}[0m\r\n"))
        #expect(HeadText.statusLine(.http2, status: 404, reasonPhrase: "ignored") == "HTTP/2 404")
        #expect(HeadText.statusLine(.http10, status: 200, reasonPhrase: "O\u{1B}K") == "HTTP/1.0 200 O\\u{1B}K")
        let (output, captured) = Output.capturing()
        VerboseLog(output: output).exchangeDidReceive(
            ExchangeEvent(request: HTTPRequest(method: .get, url: response.url), status: 200, reasonPhrase: "", responseHeaders: Headers(), protocolVersion: .http2))
        #expect(captured.stderr.hasPrefix("< HTTP/2 200\n"))
    }
}
