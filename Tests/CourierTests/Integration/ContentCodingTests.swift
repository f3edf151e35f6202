import Courier
import CourierTesting
import Foundation
import Testing

/// Runs `body` with a client of a plain server (AsyncHTTPClient's connections) and then of a
/// TLS server under a private CA (Courier's own verified connections): both transports.
private func withEachTransport(_ body: (CourierClient) async throws -> Void) async throws {
    try await withServer { server in
        try await withClient(server) { client in try await body(client) }
    }
    let world = try TLSWorld()
    try await world.run { _, client in try await body(client) }
}

@Suite("Content codings, every layer, on every transport")
struct ContentCodingTests {
    @Test(
        "stacked and mixed codings are all undone",
        arguments: [
            "gzip", "deflate", "raw-deflate", "gzip,gzip", "deflate,gzip", "gzip,deflate,gzip", "identity,gzip",
            "br", "zstd", "br,gzip", "gzip,br", "zstd,gzip", "gzip,zstd,br",
        ])
    func everyLayerIsDecoded(coding: String) async throws {
        try await withEachTransport { client in
            let text = try await client.send(CourierRequest<String>(path: "/encoded?coding=\(coding)"))
            #expect(text == "layered body")
            let streamed = try await client.stream(CourierRequest<Void>(path: "/encoded?coding=\(coding)")) { response in
                String(decoding: try await response.body.collect(upTo: 1024), as: UTF8.self)
            }
            #expect(streamed == "layered body")
        }
    }

    @Test(
        "a coding Courier cannot undo is delivered as received, Content-Encoding intact, buffered or streamed",
        arguments: ["compress", "x-custom", "gzip,compress", "compress,gzip", "br,compress"])
    func unknownCodingIsDeliveredAsReceived(coding: String) async throws {
        // The route applies the codings it knows and only labels the others: with an unknown
        // one in the list, nothing is undone, so the bytes are the known layers' output.
        var expected = Array("layered body".utf8)
        for name in coding.split(separator: ",") {
            if name == "gzip" { expected = try TestGzip.compress(expected) }
            if let compression = SystemCompression(contentCoding: String(name)) { expected = try compression.compress(expected) }
        }
        let label = coding.split(separator: ",").joined(separator: ", ")
        try await withEachTransport { client in
            let response = try await client.send(CourierRequest<CourierResponse>(path: "/encoded?coding=\(coding)"))
            #expect(response.headers["Content-Encoding"] == label)
            #expect(Array(response.body) == expected)
            let streamed = try await client.stream(CourierRequest<Void>(path: "/encoded?coding=\(coding)")) { response in
                (response.head.headers["Content-Encoding"], Array(try await response.body.collect(upTo: 1024)))
            }
            #expect(streamed.0 == label)
            #expect(streamed.1 == expected)
        }
    }

    @Test("an empty body is empty in any coding, buffered or streamed", arguments: ["gzip", "deflate", "gzip,deflate", "br", "zstd", "br,gzip"])
    func emptyEncodedBodyIsEmpty(coding: String) async throws {
        try await withEachTransport { client in
            let response = try await client.send(CourierRequest<CourierResponse>(path: "/encoded?coding=\(coding)&cut=100000"))
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
            let streamed = try await client.stream(CourierRequest<Void>(path: "/encoded?coding=\(coding)&cut=100000")) { response in
                try await response.body.collect(upTo: 1024)
            }
            #expect(streamed.isEmpty)
        }
    }

    @Test("a chunked gzip body with no data is an empty body")
    func emptyChunkedGzipBody() async throws {
        let raw = Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n".utf8)
        let server = try await FaultServer.start(.raw(raw))
        do {
            try await withClient(nil) { client in
                let response = try await client.send(CourierRequest<CourierResponse>(path: "http://127.0.0.1:\(server.port)/"))
                #expect(response.status == 200)
                #expect(response.body.isEmpty)
            }
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    @Test("a compressed body cut short is malformed, not a shorter body", arguments: ["gzip", "br", "zstd", "br,gzip"])
    func truncatedStreamIsMalformed(coding: String) async throws {
        try await withEachTransport { client in
            let error = await courierError { _ = try await client.send(CourierRequest<Data>(path: "/encoded?coding=\(coding)&cut=6")) }
            #expect(error?.kind == .malformedResponse)
        }
    }

    @Test("a bomb in any coding is refused within the ratio limit, buffered or streamed", arguments: ["br", "zstd"])
    func bombIsRefused(coding: String) async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.decompression = .enabled(maximumRatio: 50) }) { client in
                let path = "/bomb?coding=\(coding)&size=67108864"
                let buffered = await courierError { _ = try await client.send(CourierRequest<Data>(path: path)) }
                #expect(buffered?.kind == .decompressionLimitExceeded)
                let streamed = await courierError {
                    try await client.stream(CourierRequest<Void>(path: path)) { response in
                        for try await _ in response.body {}
                    }
                }
                #expect(streamed?.kind == .decompressionLimitExceeded)
            }
        }
    }

    @Test("Accept-Encoding asks for every coding the decoder undoes, unless the request names its own")
    func acceptEncoding() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                _ = try await client.send(CourierRequest<Data>(path: "/get"))
                #expect(server.receivedRequests.last?.header("Accept-Encoding") == "gzip, deflate, br, zstd")
                var own = CourierRequest<Data>(path: "/get")
                own.headers.add(name: "Accept-Encoding", value: "br")
                _ = try await client.send(own)
                #expect(server.receivedRequests.last?.header("Accept-Encoding") == "br")
            }
        }
    }

    @Test("with decompression off, the bytes are delivered as sent")
    func decompressionOff() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.decompression = .disabled }) { client in
                let response = try await client.send(CourierRequest<CourierResponse>(path: "/encoded?coding=br"))
                #expect(response.headers["Content-Encoding"] == "br")
                #expect(Array(response.body) == (try SystemCompression.brotli.compress(Array("layered body".utf8))))
            }
        }
    }
}
