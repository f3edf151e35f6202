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
        "a status outside 100–599 is a typed error, never a crash, buffered or streamed",
        arguments: [
            "HTTP/1.1 099 Low\r\n", "HTTP/1.1 000 Zero\r\n", "HTTP/1.1 600 High\r\n", "HTTP/1.1 999 Max\r\n",
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
