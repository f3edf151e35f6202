import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Responses that have no body, whatever their headers announce")
struct BodilessResponseTests {
    struct Case: Sendable, CustomStringConvertible {
        let method: CourierHTTPMethod
        let status: Int
        let headers: String
        var description: String { "\(method) → \(status) with \(headers.replacingOccurrences(of: "\r\n", with: "; "))" }
    }

    static let cases: [Case] = [
        Case(method: .head, status: 200, headers: "Content-Length: 9999999999\r\n"),
        Case(method: .head, status: 200, headers: "Content-Length: 40\r\nContent-Encoding: gzip\r\n"),
        Case(method: .head, status: 200, headers: "Content-Length: 40\r\nContent-Encoding: gzip, br, zstd\r\n"),
        Case(method: .head, status: 200, headers: "Transfer-Encoding: chunked\r\nContent-Encoding: deflate\r\n"),
        Case(method: .get, status: 204, headers: "Content-Encoding: gzip\r\n"),
        Case(method: .get, status: 304, headers: "Content-Length: 9999999999\r\nContent-Encoding: gzip\r\nETag: \"a\"\r\n"),
        Case(method: .get, status: 304, headers: "Content-Encoding: br\r\n"),
    ]

    private func raw(_ item: Case) -> [UInt8] {
        Array("HTTP/1.1 \(item.status) Whatever\r\n\(item.headers)Connection: close\r\n\r\n".utf8)
    }

    @Test("a buffered request gets the status and headers, and an empty body", arguments: cases)
    func buffered(item: Case) async throws {
        let server = try await FaultServer.start(.raw(raw(item)))
        defer { Task { try? await server.shutdown() } }
        try await withClient(nil) { client in
            var request = CourierRequest<CourierResponse>(method: item.method, path: "http://127.0.0.1:\(server.port)/x")
            request.validators = []
            let response = try await client.send(request)
            #expect(response.status == item.status)
            #expect(response.body.isEmpty)
        }
    }

    @Test("a streamed request gets the head and an empty body", arguments: cases)
    func streamed(item: Case) async throws {
        let server = try await FaultServer.start(.raw(raw(item)))
        defer { Task { try? await server.shutdown() } }
        try await withClient(nil) { client in
            var request = CourierRequest<Void>(method: item.method, path: "http://127.0.0.1:\(server.port)/x")
            request.validators = []
            let (status, bytes) = try await client.stream(request) { response in
                (response.head.status, try await response.body.collect(upTo: 1 << 20).count)
            }
            #expect(status == item.status)
            #expect(bytes == 0)
        }
    }
}
