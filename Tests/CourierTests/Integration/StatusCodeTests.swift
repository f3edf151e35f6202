import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Status lines a server may send")
struct StatusCodeTests {
    private func respond(_ heads: String, _ body: (Int) async throws -> Void) async throws {
        let raw = Array("\(heads)Content-Length: 2\r\nConnection: close\r\n\r\nhi".utf8)
        let server = try await FaultServer.start(.raw(raw))
        do {
            try await body(server.port)
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    @Test(
        "a status outside 100–999 is a typed error, never a crash, buffered or streamed",
        arguments: [
            "HTTP/1.1 099 Low\r\n", "HTTP/1.1 000 Zero\r\n", "HTTP/1.1 1000 Four digits\r\n",
            "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 042 Late\r\n",
        ])
    func outOfRange(head: String) async throws {
        try await respond(head) { port in
            try await withClient(nil) { client in
                var request = CourierRequest<CourierResponse>(path: "http://127.0.0.1:\(port)/")
                request.validators = []
                let error = await courierError { _ = try await client.send(request) }
                #expect(error?.kind == .malformedResponse)
                let streamed = await courierError {
                    _ = try await client.stream(CourierRequest<Void>(path: "http://127.0.0.1:\(port)/")) { _ in }
                }
                #expect(streamed?.kind == .malformedResponse)
            }
        }
    }

    @Test(
        "a three-digit status above 599 is delivered, buffered or streamed (RFC 9110: status-code = 3DIGIT)",
        arguments: [600, 799, 999])
    func highStatus(code: Int) async throws {
        try await respond("HTTP/1.1 \(code) Odd\r\n") { port in
            try await withClient(nil) { client in
                var request = CourierRequest<CourierResponse>(path: "http://127.0.0.1:\(port)/")
                request.validators = []
                let response = try await client.send(request)
                #expect(response.status == code)
                #expect(response.body == Data("hi".utf8))
            }
        }
        try await respond("HTTP/1.1 \(code) Odd\r\n") { port in
            try await withClient(nil) { client in
                let url = try #require(URL(string: "http://127.0.0.1:\(port)/"))
                let streamed = try await client.stream(CourierHTTPRequest(method: .get, url: url)) { response in
                    (response.head.status, try await response.body.collect(upTo: 100))
                }
                #expect(streamed.0 == code)
                #expect(streamed.1 == Data("hi".utf8))
            }
        }
    }

    @Test(
        "interim responses before the final one are passed over",
        arguments: [
            "HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n",
        ])
    func interimResponses(interim: String) async throws {
        try await respond(interim + "HTTP/1.1 201 Created\r\n") { port in
            try await withClient(nil) { client in
                let response = try await client.send(CourierRequest<CourierResponse>(path: "http://127.0.0.1:\(port)/"))
                #expect(response.status == 201)
                #expect(response.body == Data("hi".utf8))
            }
        }
    }
}
