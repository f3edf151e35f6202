import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// The cases of the conformance suite of Swift's proposed standard HTTP client API
/// (apple/swift-http-api-proposal), written again for `CourierClient.perform` against the test
/// server's `/conformance/` routes, which answer as the suite's own server does.
@Suite("Conformance with the proposed standard HTTP client API")
struct StandardAPIConformanceTests {
    /// The request as the server's `/conformance/request` route describes it.
    struct Described: Decodable {
        let params: [String: [String]]
        let headers: [String: [String]]
        let body: String
        let method: String
        let trailers: [String: [String]]

        /// The values of the field `name`, whatever the case of its name on the wire.
        func values(_ name: String) -> [String] {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value ?? []
        }
    }

    /// Runs `body` with a client and a request builder for the server's conformance routes.
    private func withConformanceServer(
        configure: @escaping (inout ClientConfiguration) -> Void = { _ in },
        _ body: (CourierClient, _ request: (HTTPRequest.Method, String, HTTPFields) -> HTTPRequest) async throws -> Void
    ) async throws {
        try await withServer { server in
            try await withClient(server, configure: configure) { client in
                try await body(client) { method, route, fields in
                    HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/conformance/" + route, headerFields: fields)
                }
            }
        }
    }

    private static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    private static func describe(_ data: Data) throws -> Described { try JSONDecoder().decode(Described.self, from: data) }

    /// Reads `body` to its end, each piece a single `A` passed to `answer`; returns how many came.
    private static func countAs(_ body: ResponseBodyStream, answer: (Data) -> Void) async throws -> Int {
        var pieces = 0
        for try await piece in body {
            #expect(piece == Data("A".utf8))
            pieces += 1
            answer(piece)
        }
        return pieces
    }

    @Test("every method gets an empty 200 without trailers", arguments: [HTTPRequest.Method.head, .get, .put, .post, .delete])
    func ok(method: HTTPRequest.Method) async throws {
        try await withConformanceServer { client, request in
            let (status, body, trailers) = try await client.perform(request: request(method, "200", [:])) { response, body in
                let (text, trailers) = try await body.collect(upTo: 1024, Self.text)
                return (response.status, text, trailers)
            }
            #expect(status == .ok)
            #expect(body.isEmpty)
            #expect(trailers == nil)
        }
    }

    @Test("a restartable body is echoed")
    func echoString() async throws {
        try await withConformanceServer { client, request in
            let echo = try await client.perform(
                request: request(.post, "echo", [:]),
                body: .restartable { writer in
                    try await writer.write(Data("Hello World".utf8))
                    return nil
                }
            ) { response, body in
                #expect(response.status == .ok)
                return try await body.collect(upTo: 1024, Self.text).0
            }
            #expect(echo == "Hello World")
        }
    }

    @Test("an empty body of known length 0 reaches the server empty")
    func emptyBody() async throws {
        try await withConformanceServer { client, request in
            let described = try await client.perform(
                request: request(.post, "request", [:]),
                body: .restartable(knownLength: 0) { writer in
                    try await writer.write(Data())
                    return nil
                }
            ) { _, body in try await body.collect(upTo: 1024, Self.describe).0 }
            #expect(described.body.isEmpty)
            #expect(described.values("Content-Length") == ["0"])
        }
    }

    @Test("a coded body is asked for and decoded; Content-Encoding stays", arguments: [("gzip", "gzip"), ("deflate", "deflate"), ("brotli", "br")])
    func codings(route: String, coding: String) async throws {
        try await withConformanceServer { client, request in
            let (encoding, text) = try await client.perform(request: request(.get, route, [:])) { response, body in
                #expect(response.status == .ok)
                return (response.headerFields[.contentEncoding], try await body.collect(upTo: 1024, Self.text).0)
            }
            #expect(encoding == coding)
            #expect(text == "TEST\n")
        }
    }

    @Test("a body sent without a coding is read as it is")
    func identity() async throws {
        try await withConformanceServer { client, request in
            let (encoding, text) = try await client.perform(request: request(.get, "identity", [:])) { response, body in
                (response.headerFields[.contentEncoding], try await body.collect(upTo: 1024, Self.text).0)
            }
            #expect(encoding == nil)
            #expect(text == "TEST\n")
        }
    }

    @Test("a custom field, an empty field and a repeated field reach the server as written")
    func requestFields() async throws {
        try await withConformanceServer { client, request in
            var fields: HTTPFields = [HTTPField.Name("X-Foo")!: "BARbaz", HTTPField.Name("X-Empty")!: ""]
            fields.append(HTTPField(name: HTTPField.Name("X-Test")!, value: "one"))
            fields.append(HTTPField(name: HTTPField.Name("X-Test")!, value: "two"))
            let described = try await client.perform(
                request: request(.post, "request", fields),
                body: .restartable { writer in
                    try await writer.write(Data("Hello World".utf8))
                    return nil
                }
            ) { _, body in try await body.collect(upTo: 4096, Self.describe).0 }
            #expect(described.values("X-Foo") == ["BARbaz"])
            #expect(described.values("X-Empty") == [""])
            #expect(described.values("X-Test").flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } == ["one", "two"])
            #expect(described.body == "Hello World")
            #expect(described.method == "POST")
        }
    }

    @Test("a repeated response field reaches the handler with both values")
    func responseFields() async throws {
        try await withConformanceServer { client, request in
            let values = try await client.perform(request: request(.get, "header_multivalue", [:])) { response, _ in
                response.headerFields[values: HTTPField.Name("X-Test")!]
            }
            #expect(values.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } == ["one", "two"])
        }
    }

    @Test("301 and 308 are followed to the request they name", arguments: ["301", "308"])
    func redirects(route: String) async throws {
        try await withConformanceServer { client, request in
            let (status, described) = try await client.perform(request: request(.get, route, [:])) { response, body in
                (response.status, try await body.collect(upTo: 4096, Self.describe).0)
            }
            #expect(status == .ok)
            #expect(described.method == "GET")
            #expect(described.body.isEmpty)
        }
    }

    @Test("a redirect loop fails")
    func redirectLoop() async throws {
        try await withConformanceServer { client, request in
            let error = await #expect(throws: CourierError.self) {
                try await client.perform(request: request(.get, "redirect_ping", [:])) { _, _ in }
            }
            #expect(error?.kind == .redirectLoop)
        }
    }

    @Test("a 404 and a well-formed status out of the registered range reach the handler", arguments: [("404", 404), ("999", 999)])
    func statuses(route: String, code: Int) async throws {
        try await withConformanceServer { client, request in
            let (status, body) = try await client.perform(request: request(.get, route, [:])) { response, body in
                (response.status.code, try await body.collect(upTo: 1024, Self.text).0)
            }
            #expect(status == code)
            #expect(body.isEmpty)
        }
    }

    @Test("a hundred requests at once all succeed")
    func stress() async throws {
        try await withConformanceServer { client, request in
            let head = request(.get, "request", [:])
            let succeeded = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        try await client.perform(request: head) { response, body in
                            let (bytes, _) = try await body.collect(upTo: 4096) { $0 }
                            return response.status == .ok && !bytes.isEmpty
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(succeeded == 100)
        }
    }

    @Test("cancelling before the head arrives ends the call")
    func cancelBeforeTheHead() async throws {
        try await withConformanceServer { client, request in
            let head = request(.get, "stall", [:])
            let task = Task { try await client.perform(request: head) { _, _ in Issue.record("no response was expected") } }
            try await Task.sleep(for: .milliseconds(100))
            task.cancel()
            let error = await #expect(throws: CourierError.self) { try await task.value }
            #expect(error?.kind == .cancelled)
        }
    }

    @Test("cancelling while the body stalls ends the read")
    func cancelDuringTheBody() async throws {
        try await withConformanceServer { client, request in
            let head = request(.get, "stall_body", [:])
            let (started, start) = AsyncStream<Void>.makeStream()
            let task = Task {
                try await client.perform(request: head) { response, body in
                    #expect(response.status == .ok)
                    start.yield()
                    var received = 0
                    for try await piece in body { received += piece.count }
                    return received
                }
            }
            for await _ in started { break }
            task.cancel()
            await #expect(throws: (any Error).self) { try await task.value }
        }
    }

    @Test("a body of 1 MB of known length is echoed whole")
    func echoOneMegabyte() async throws {
        try await withConformanceServer { client, request in
            let echo = try await client.perform(
                request: request(.post, "echo", [:]),
                body: .restartable(knownLength: 1_000_000) { writer in
                    try await writer.write(Data(repeating: UInt8(ascii: "A"), count: 1_000_000))
                    return nil
                }
            ) { _, body in try await body.collect(upTo: 2_000_000) { $0 }.0 }
            #expect(echo == Data(repeating: UInt8(ascii: "A"), count: 1_000_000))
        }
    }

    @Test("a handler that reads one byte of a 1 MB body returns, and the client goes on")
    func underRead() async throws {
        try await withConformanceServer { client, request in
            for _ in 0..<3 {
                let first = try await client.perform(request: request(.get, "1mb_body", [:])) { _, body in
                    for try await piece in body { return piece.prefix(1) }
                    return Data()
                }
                #expect(first == Data("A".utf8))
            }
        }
    }

    @Test("HEAD with a Content-Length has no body and no trailers")
    func headWithContentLength() async throws {
        try await withConformanceServer { client, request in
            let (status, length, body, trailers) = try await client.perform(request: request(.head, "head_with_cl", [:])) { response, body in
                let (text, trailers) = try await body.collect(upTo: 1024, Self.text)
                return (response.status, response.headerFields[.contentLength], text, trailers)
            }
            #expect(status == .ok)
            #expect(length == "1000")
            #expect(body.isEmpty)
            #expect(trailers == nil)
        }
    }

    @Test("each piece is echoed before the next is written")
    func echoInterleave() async throws {
        try await withConformanceServer { client, request in
            let (echoed, next) = AsyncStream<Void>.makeStream()
            let pieces = try await client.perform(
                request: request(.post, "echo", [:]),
                body: .restartable { writer in
                    var turns = echoed.makeAsyncIterator()
                    for _ in 0..<1000 {
                        try await writer.write(Data("A".utf8))
                        guard await turns.next() != nil else { break }
                    }
                    return nil
                }
            ) { response, body in
                #expect(response.status == .ok)
                defer { next.finish() }
                return try await Self.countAs(body) { _ in next.yield() }
            }
            #expect(pieces == 1000)
        }
    }

    @Test("each piece the server says is written back before it says the next")
    func speakInterleave() async throws {
        try await withConformanceServer { client, request in
            let (heard, pass) = AsyncStream<Data>.makeStream()
            let pieces = try await client.perform(
                request: request(.post, "speak", [:]),
                body: .restartable { writer in
                    for await piece in heard { try await writer.write(piece) }
                    return nil
                }
            ) { response, body in
                #expect(response.status == .ok)
                defer { pass.finish() }
                return try await Self.countAs(body) { pass.yield($0) }
            }
            #expect(pieces == 1000)
        }
    }

    @Test("trailers written after a streamed body reach the server, and an echo's trailers reach the handler")
    func trailersBothWays() async throws {
        try await withConformanceServer { client, request in
            let trailers: HTTPFields = [HTTPField.Name("X-Checksum")!: "1234"]
            let described = try await client.perform(
                request: request(.post, "request", [:]),
                body: .restartable { writer in
                    try await writer.write(Data("Hello".utf8))
                    return trailers
                }
            ) { _, body in try await body.collect(upTo: 4096, Self.describe).0 }
            #expect(described.body == "Hello")
            #expect(described.trailers.first { $0.key.lowercased() == "x-checksum" }?.value == ["1234"])
            let (echo, echoed) = try await client.perform(
                request: request(.post, "echo", [:]),
                body: .restartable { writer in
                    try await writer.write(Data("Hello".utf8))
                    return trailers
                }
            ) { _, body in try await body.collect(upTo: 4096, Self.text) }
            #expect(echo == "Hello")
            #expect(echoed?[HTTPField.Name("X-Checksum")!] == "1234")
        }
    }
}
