import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A connection that fails in the middle of a streamed response: every byte that came before
/// the failure reaches the reader, then the failure.
@Suite("Responses cut short")
struct CutShortResponseTests {
    /// A chunked response of `chunks` chunks of 8 bytes (`chunk 001`, `chunk 002`, …) that
    /// never ends: the server closes after the last chunk, in the same write.
    static func cutResponse(chunks: Int) -> (wire: [UInt8], body: Data) {
        var wire = Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        var body = Data()
        for index in 1...chunks {
            let piece = Array(String(format: "chunk%03d", index).utf8)
            wire += Array(String(piece.count, radix: 16).utf8) + [13, 10] + piece + [13, 10]
            body.append(contentsOf: piece)
        }
        return (wire, body)
    }

    /// Reads the response to `url` piece by piece until it fails; the bytes read and the failure.
    /// With `pause`, the reader waits that long after the first piece: the transport then holds
    /// the rest, up to its bound, and the connection has failed behind it.
    static func read(_ url: URL, with client: CourierClient, pause: Duration? = nil) async throws -> (Data, CourierError?) {
        try await client.stream(CourierRequest<Void>(path: url.absoluteString)) { response in
            var received = Data()
            do {
                for try await piece in response.body {
                    if received.isEmpty, let pause { try await Task.sleep(for: pause) }
                    received.append(piece)
                }
                return (received, nil)
            } catch let error as CourierError {
                return (received, error)
            }
        }
    }

    /// A chunked response of `chunks` chunks of `size` bytes (the byte `i % 251` at offset
    /// `i`) that never ends.
    static func largeCutResponse(chunks: Int, size: Int) -> (wire: [UInt8], body: Data) {
        var wire = Array("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let body = Data((0..<(chunks * size)).map { UInt8($0 % 251) })
        for index in 0..<chunks {
            wire += Array(String(size, radix: 16).utf8) + [13, 10] + body[(index * size)..<((index + 1) * size)] + [13, 10]
        }
        return (wire, body)
    }

    /// Runs `body` with a server that answers every request with `wire` and then closes, and
    /// a client without retries that reaches it directly or, when `throughSOCKS`, through a
    /// SOCKS5 proxy on the client's own connections.
    private func withCutServer(_ wire: [UInt8], throughSOCKS: Bool, _ body: (URL, CourierClient) async throws -> Void) async throws {
        let server = try await FaultServer.start(.raw(wire))
        do {
            try await SOCKSProxy.withProxy { proxy in
                try await withClient(
                    nil,
                    configure: {
                        $0.retryPolicy = .none
                        if throughSOCKS { $0.proxy = Proxy(host: "127.0.0.1", port: proxy.port, kind: .socks5) }
                    }
                ) { client in try await body(server.url, client) }
            }
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    @Test("a reader that falls behind still gets every byte that came before the failure")
    func aSlowReaderGetsEveryByte() async throws {
        try await slowReader(throughSOCKS: false)
    }

    @Test("a reader that falls behind still gets every byte, through the client's own connections (a SOCKS5 proxy)")
    func aSlowReaderGetsEveryByteThroughTheClientsOwnConnections() async throws {
        try await slowReader(throughSOCKS: true)
    }

    /// A reader that pauses after the first piece of a 2 MiB response cut short: more than the
    /// transports hold for a reader (512 KiB), so that the rest waits in the connection's own
    /// buffers when it fails.
    private func slowReader(throughSOCKS: Bool) async throws {
        let (wire, body) = Self.largeCutResponse(chunks: 256, size: 8192)
        try await withCutServer(wire, throughSOCKS: throughSOCKS) { url, client in
            let (received, error) = try await Self.read(url, with: client, pause: .milliseconds(300))
            // Compared as a Bool: a failing comparison of two 2 MiB values would have the test
            // library diff them byte by byte.
            let mismatch = zip(received, body).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(received.count == body.count && mismatch == nil, "\(received.count) of \(body.count) bytes, first difference at \(String(describing: mismatch))")
            #expect(error?.kind == .connectionFailed)
        }
    }

    @Test("every byte that came before the connection failed reaches the reader, in order, then the failure")
    func everyByteBeforeTheFailure() async throws {
        // Hundreds of chunks in one write arrive as hundreds of parts at once: more than one
        // turn of the loop hands a reader, all of them before the connection's end.
        for chunks in [1, 60, 400] {
            let (wire, body) = Self.cutResponse(chunks: chunks)
            try await withCutServer(wire, throughSOCKS: false) { url, client in
                let (received, error) = try await Self.read(url, with: client)
                #expect(received == body, "\(chunks) chunks: \(received.count) of \(body.count) bytes")
                #expect(error?.kind == .connectionFailed)
            }
        }
    }

    @Test("through the client's own connections (a SOCKS5 proxy) too")
    func everyByteThroughTheClientsOwnConnections() async throws {
        let (wire, body) = Self.cutResponse(chunks: 400)
        try await withCutServer(wire, throughSOCKS: true) { url, client in
            let (received, error) = try await Self.read(url, with: client)
            #expect(received == body, "\(received.count) of \(body.count) bytes")
            #expect(error?.kind == .connectionFailed)
        }
    }
}
