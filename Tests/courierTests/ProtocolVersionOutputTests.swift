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
        var response = CourierResponse(status: 200, reasonPhrase: "", headers: ["Content-Type": "text/plain"], url: URL(string: "https://example.test/")!)
        response.protocolVersion = .http2
        #expect(HeadText.render(response) == "HTTP/2 200\r\nContent-Type: text/plain\r\n\r\n")
        #expect(HeadText.render(response, colors: true).hasPrefix("\u{1B}[34mHTTP/2\u{1B}[0m \u{1B}[1;32m200\u{1B}[0m\r\n"))
        #expect(HeadText.statusLine(.http2, status: 404, reasonPhrase: "ignored") == "HTTP/2 404")
        #expect(HeadText.statusLine(.http10, status: 200, reasonPhrase: "O\u{1B}K") == "HTTP/1.0 200 O\\u{1B}K")
        let (output, captured) = Output.capturing()
        VerboseLog(output: output).exchangeDidReceive(
            ExchangeEvent(request: CourierHTTPRequest(method: .get, url: response.url), status: 200, reasonPhrase: "", responseHeaders: Headers(), protocolVersion: .http2))
        #expect(captured.stderr.hasPrefix("< HTTP/2 200\n"))
    }
}

@Suite("courier fetch -v: the request line says the version it went over")
struct VerboseRequestLineTests {
    @Test("over TLS the server chose HTTP/2: the request's lines wait for the head and say HTTP/2, as the status line does")
    func http2OverTLS() {
        let (output, captured) = Output.capturing()
        let log = VerboseLog(output: output)
        let request = CourierHTTPRequest(method: .get, url: URL(string: "https://example.test/h2?q=1")!)
        log.exchangeWillSend(ExchangeEvent(request: request))
        #expect(captured.stderr.isEmpty, "nothing before the version is known")
        log.exchangeDidReceive(ExchangeEvent(request: request, status: 200, reasonPhrase: "", responseHeaders: Headers(), protocolVersion: .http2))
        let lines = captured.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "> GET /h2?q=1 HTTP/2", "\(captured.stderr)")
        #expect(lines.contains("> Host: example.test"))
        let end = lines.firstIndex(of: ">")
        let status = lines.firstIndex(of: "< HTTP/2 200")
        #expect(end != nil && status != nil && end! < status!, "\(captured.stderr)")
    }

    @Test("over TLS the server chose HTTP/1.1, and over plain HTTP: HTTP/1.1")
    func http11() async throws {
        let files = try FetchTLSTests.Files()
        defer { files.remove() }
        try await TestServer.withServer(tls: TestServerTLS(chain: [files.server])) { server in
            let run = await courier("fetch", "-v", "--connect-timeout", "120", "--cacert", files.caFile, server.url("/get").absoluteString)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("> GET /get HTTP/1.1\n"), "\(run.stderr)")
        }
        try await withServer { server in
            let run = await courier("fetch", "-v", server.url("/get?a=1").absoluteString)
            #expect(run.stderr.contains("> GET /get?a=1 HTTP/1.1\n"), "\(run.stderr)")
        }
    }

    @Test("a request over TLS that got no response is printed without a version, before the next one")
    func noResponse() {
        let (output, captured) = Output.capturing()
        let log = VerboseLog(output: output)
        let url = URL(string: "https://example.test/a")!
        log.exchangeWillSend(ExchangeEvent(request: CourierHTTPRequest(method: .get, url: url)))
        #expect(captured.stderr.isEmpty, "nothing before the version is known")
        log.exchangeWillSend(ExchangeEvent(request: CourierHTTPRequest(method: .post, url: url)))
        #expect(captured.stderr.hasPrefix("> GET /a\n> Host: example.test\n"), "\(captured.stderr)")
        log.exchangeDidReceive(
            ExchangeEvent(request: CourierHTTPRequest(method: .post, url: url), status: 201, reasonPhrase: "Created", responseHeaders: Headers(), protocolVersion: .http11))
        #expect(captured.stderr.contains(">\n> POST /a HTTP/1.1\n"), "\(captured.stderr)")
        #expect(captured.stderr.hasSuffix("< HTTP/1.1 201 Created\n<\n"), "\(captured.stderr)")
    }
}
