import Courier
import CourierTesting
import Foundation
import Testing

/// A server that answers a request whole as soon as it has its head, before the body, and
/// then closes the connection: the answer reaches the caller, and the client (its pool
/// included) goes on serving requests.
@Suite("Answers that come before the request's body ends")
struct EarlyAnswerTests {
    static let answer = Array("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok".utf8)

    @Test("a buffered body answered at once and cut off: the answer, or a typed error, never a stop", arguments: [16, 64 * 1024])
    func bufferedBodyAnsweredAtOnce(size: Int) async throws {
        let server = try await FaultServer.start(.raw(Self.answer))
        do {
            try await withClient(nil, configure: { $0.retryPolicy = .none }) { client in
                var delivered = 0
                for round in 0..<150 {
                    var request = CourierRequest<CourierResponse>(method: .post, path: "http://127.0.0.1:\(server.port)/\(round)")
                    request.body = .data(Data(repeating: 0x61, count: size))
                    request.validators = []
                    do {
                        let response = try await client.send(request)
                        #expect(response.status == 201 && response.body == Data("ok".utf8), "round \(round)")
                        delivered += 1
                    } catch let error as CourierError {
                        // A close with body bytes still unread resets the connection, and the
                        // reset can drop the answer before it is read (a peer loses it too).
                        #expect(error.kind == .connectionFailed, "round \(round): \(error)")
                    }
                }
                #expect(delivered > 0, "no answer was delivered in 150 rounds")
            }
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }
}
