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

    @Test("a coding Courier cannot undo is a typed error, never the encoded bytes", arguments: ["br", "zstd", "gzip,br", "compress"])
    func unknownCodingIsRefused(coding: String) async throws {
        try await withEachTransport { client in
            let error = await courierError { _ = try await client.send(CourierRequest<Data>(path: "/encoded?coding=\(coding)")) }
            #expect(error?.kind == .unsupportedContentEncoding)
            let streamed = await courierError {
                _ = try await client.stream(CourierRequest<Void>(path: "/encoded?coding=\(coding)")) { _ in }
            }
            #expect(streamed?.kind == .unsupportedContentEncoding)
        }
    }

    @Test("a compressed body cut short is malformed, not a shorter body")
    func truncatedStreamIsMalformed() async throws {
        try await withEachTransport { client in
            let error = await courierError { _ = try await client.send(CourierRequest<Data>(path: "/encoded?coding=gzip&cut=6")) }
            #expect(error?.kind == .malformedResponse)
        }
    }

    @Test("with decompression off, the bytes are delivered as sent")
    func decompressionOff() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.decompression = .disabled }) { client in
                let response = try await client.send(CourierRequest<CourierResponse>(path: "/encoded?coding=br"))
                #expect(response.headers["Content-Encoding"] == "br")
                #expect(String(decoding: response.body, as: UTF8.self) == "layered body")
            }
        }
    }
}
