import Courier
import CourierTesting
import Foundation
import Testing

/// Trailer fields in both directions over HTTP/1.1: read after a response's body, buffered or
/// streamed, and sent after a request body a ``RequestBodyWriter`` wrote. URLSession receives
/// none and refuses to send any.
@Suite("Trailers")
struct TrailerTests {
    @Test("a buffered response carries its trailers apart from its headers", arguments: ["", "&coding=gzip"])
    func bufferedResponse(coding: String) async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let response = try await client.send(CourierHTTPRequest(method: .get, url: server.url("/trailers?X-Checksum=abc&Grpc-Status=0" + coding)))
                #expect(response.status == 200)
                let echo = try JSONDecoder().decode(TrailerEcho.self, from: response.body)
                #expect(echo.length == 0)
                #expect(response.headers["X-Checksum"] == nil)
                if TestTransport.selected == .urlSession {
                    #expect(response.trailers.isEmpty, "URLSession has no way to hand trailers over")
                } else {
                    #expect(Array(response.trailers.map(\.name)) == ["X-Checksum", "Grpc-Status"])
                    #expect(response.trailers["x-checksum"] == "abc")
                    #expect(response.trailers["Grpc-Status"] == "0")
                }
            }
        }
    }

    @Test("a streamed response's trailers are read once its body has ended")
    func streamedResponse() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let request = CourierHTTPRequest(method: .get, url: server.url("/trailers?X-Checksum=abc&coding=gzip"))
                let (body, trailers) = try await client.stream(request) { response in
                    var body = Data()
                    for try await piece in response.body { body.append(piece) }
                    return (body, response.body.trailers)
                }
                let echo = try JSONDecoder().decode(TrailerEcho.self, from: body)
                #expect(echo.length == 0)
                let expected: Headers = TestTransport.selected == .urlSession ? [:] : ["X-Checksum": "abc"]
                #expect(trailers == expected)
            }
        }
    }

    @Test("a response without trailers has none, buffered or streamed")
    func noTrailers() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let response = try await client.send(CourierHTTPRequest(method: .get, url: server.url("/trailers")))
                #expect(response.trailers.isEmpty)
                let streamed = try await client.stream(CourierHTTPRequest(method: .get, url: server.url("/stream-bytes/1000"))) { response in
                    _ = try await response.body.collect(upTo: 10_000)
                    return response.body.trailers
                }
                #expect(streamed == Headers())
            }
        }
    }

    @Test("a written body ends with the trailers its closure returns")
    func requestTrailers() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var request = CourierHTTPRequest(method: .post, url: server.url("/trailers"))
                request.body = writtenBody(trailers: ["X-Checksum": "42", "X-Parts": "2"])
                if TestTransport.selected == .urlSession {
                    let error = await courierError { _ = try await client.send(request) }
                    #expect(error?.kind == .invalidConfiguration)
                    #expect(error?.message.contains("X-Checksum") == true)
                    #expect(server.receivedRequests.filter { $0.path == "/trailers" }.isEmpty, "no complete body reached the server")
                    return
                }
                let response = try await client.send(request)
                let echo = try JSONDecoder().decode(TrailerEcho.self, from: response.body)
                #expect(echo.length == 6)
                #expect(echo.trailers == ["X-Checksum": "42", "X-Parts": "2"])
                let received = try #require(server.receivedRequests.last)
                #expect(received.body == Array("abcdef".utf8))
                #expect(received.header("Transfer-Encoding")?.lowercased() == "chunked")
                // What carries the exchange to its connection stays off the wire.
                #expect(!received.headers.contains { $0.name.hasPrefix("~") })
            }
        }
    }

    @Test("a written body without trailers is sent whole, of known length or chunked", arguments: [Int64?.none, 6])
    func writtenBodyWithoutTrailers(length: Int64?) async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var request = CourierHTTPRequest(method: .post, url: server.url("/trailers"))
                request.body = writtenBody(length: length, trailers: [:])
                let response = try await client.send(request)
                let echo = try JSONDecoder().decode(TrailerEcho.self, from: response.body)
                #expect(echo.length == 6)
                #expect(echo.trailers.isEmpty)
                // URLSession on Linux sends every streamed body chunked.
                if let length, TestTransport.selected == .standard {
                    #expect(server.receivedRequests.last?.header("Content-Length") == String(length))
                }
            }
        }
    }

    /// Trailers that cannot be sent fail the request before the body's end goes out.
    enum Refused: String, CaseIterable, Sendable {
        case knownLength, framingField, authenticationField, injection

        var body: CourierRequestBody {
            switch self {
            case .knownLength: writtenBody(length: 6, trailers: ["X-Checksum": "42"])
            case .framingField: writtenBody(trailers: ["Content-Length": "6"])
            case .authenticationField: writtenBody(trailers: ["authorization": "Bearer x"])
            case .injection: writtenBody(trailers: ["X-Checksum": "42\r\nX-Injected: 1"])
            }
        }

        var kind: CourierError.Kind { self == .knownLength ? .invalidBody : .invalidHeader }
    }

    @Test("trailers that cannot be sent are refused before the body looks complete", arguments: Refused.allCases)
    func refusedTrailers(refused: Refused) async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var request = CourierHTTPRequest(method: .post, url: server.url("/trailers"))
                request.body = refused.body
                let error = await courierError { _ = try await client.send(request) }
                #expect(error?.kind == refused.kind, "\(String(describing: error))")
                #expect(server.receivedRequests.filter { $0.path == "/trailers" }.isEmpty)
                // The client goes on working.
                let after = try await client.send(CourierHTTPRequest(method: .get, url: server.url("/get")))
                #expect(after.status == 200)
            }
        }
    }

    @Test("a writer that fails fails its request, and the server never sees a whole body")
    func failingWriter() async throws {
        struct Broken: Error {}
        try await withServer { server in
            try await withClient(server) { client in
                var request = CourierHTTPRequest(method: .post, url: server.url("/trailers"))
                request.body = .writing { writer in
                    try await writer.write(Data("abc".utf8))
                    throw Broken()
                }
                await #expect(throws: (any Error).self) { _ = try await client.send(request) }
                #expect(server.receivedRequests.filter { $0.path == "/trailers" }.isEmpty)
            }
        }
    }

    @Test("a writer whose request ended early finds its next write refused")
    func writeAfterTheExchangeEnded() async throws {
        let outcome = WriteOutcome()
        // A server that answers as soon as it has the head, and closes.
        let answer = "HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        let server = try await FaultServer.start(.raw(Array(answer.utf8)))
        do {
            try await withClient(nil) { client in
                var request = CourierHTTPRequest(method: .post, url: server.url.appendingPathComponent("upload"))
                request.body = .writing { writer in
                    do {
                        // Far more than any connection buffers: a write is still waiting when
                        // the server closes, and the exchange ends.
                        for _ in 0..<4096 { try await writer.write(Data(repeating: 7, count: 64 * 1024)) }
                        outcome.record(nil)
                    } catch {
                        outcome.record(error)
                        throw error
                    }
                    return [:]
                }
                _ = try? await client.send(request)
            }
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
        #expect(await eventually { outcome.isRecorded })
        #expect((outcome.error as? CourierError)?.kind == .cancelled, "the writer was told its body is no longer wanted: \(String(describing: outcome.error))")
    }
}

/// What a writer's last write did.
private final class WriteOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: (any Error)??

    func record(_ error: (any Error)?) { lock.withLock { recorded = .some(error) } }
    var isRecorded: Bool { lock.withLock { recorded != nil } }
    var error: (any Error)? { lock.withLock { recorded ?? nil } }
}
