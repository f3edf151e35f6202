import Courier
import CourierTesting
import Foundation
import Testing

/// Every way a server can misbehave ends in a typed error: no crash, no hang.
@Suite("Fault server")
struct FaultTests {
    static let cases: [(FaultServer.Fault, CourierError.Kind)] = [
        (.closeBeforeResponse, .connectionFailed),
        (.closeMidBody, .connectionFailed),
        (.stall, .timeout),
        (.malformedStatusLine, .malformedResponse),
        (.brokenChunkedFraming, .malformedResponse),
        (.conflictingContentLength, .malformedResponse),
        (.endlessHeaders, .malformedResponse),
        (.trickleHead, .timeout),
        (.trickleBody, .timeout),
    ]

    /// Each fault, over plain HTTP (AsyncHTTPClient's transport) and over HTTPS to a host
    /// with trust settings of its own (Courier's channel transport).
    @Test(.timeLimit(.minutes(2)), arguments: 0..<cases.count, [false, true])
    func faultEndsInItsTypedError(index: Int, overTLS: Bool) async throws {
        let (fault, expected) = Self.cases[index]
        let world = try TLSWorld()
        let server = try await FaultServer.start(fault, tls: overTLS ? world.serverTLS : nil)
        var configuration = ClientConfiguration()
        if overTLS { configuration.tls = world.trustingAuthority }
        // Only the stall needs a short read timeout, and only the trickles (which are never
        // silent) a short total one; the other faults must fail on their own, so they get
        // limits that a loaded machine never reaches.
        configuration.timeouts.connect = .seconds(120)  // the whole suite loads the machine
        configuration.timeouts.read = .seconds(30)
        configuration.timeouts.total = .seconds(90)
        switch fault {
        case .stall: configuration.timeouts.read = .milliseconds(500)
        case .trickleHead, .trickleBody: configuration.timeouts.total = .seconds(1)
        default: break
        }
        let error = await courierError {
            try await CourierClient.withClient(configuration: configuration) { client in
                _ = try await client.response(for: CourierRequest<CourierResponse>(path: server.url.absoluteString))
            }
        }
        try await server.shutdown()
        #expect(error?.kind == expected, "fault \(fault) over \(overTLS ? "TLS" : "TCP") gave \(String(describing: error))")
        #expect(error?.url != nil)
    }

    /// Floods in one line or one part of the message: each ends in a typed error (or, for
    /// interim responses, the final response), on both transports. The HTTP/1.1 decoder
    /// limits header fields but reads a status line or a chunk extension of any length
    /// without keeping it, so those two end when the server closes (or at the deadline).
    static let floods: [(name: String, bytes: [UInt8], expected: CourierError.Kind?)] = [
        ("a 4 MiB status line", Array("HTTP/1.1 200 ".utf8) + [UInt8](repeating: 0x61, count: 4 << 20), .connectionFailed),
        ("a 4 MiB header value", Array("HTTP/1.1 200 OK\r\nX-Big: ".utf8) + [UInt8](repeating: 0x61, count: 4 << 20), .malformedResponse),
        ("a 4 MiB chunk extension", Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;".utf8) + [UInt8](repeating: 0x61, count: 4 << 20), .connectionFailed),
        ("a chunk size past Int64", Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nx\r\n0\r\n\r\n".utf8), .malformedResponse),
        ("a Content-Length past Int64", Array("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nx".utf8), .malformedResponse),
        ("a negative Content-Length", Array("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nx".utf8), .malformedResponse),
        (
            "5000 interim responses",
            Array(String(repeating: "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", count: 5000).utf8)
                + Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8), nil
        ),
    ]

    @Test(.timeLimit(.minutes(2)), arguments: 0..<floods.count, [false, true])
    func floodEndsInATypedError(index: Int, overTLS: Bool) async throws {
        let flood = Self.floods[index]
        let world = try TLSWorld()
        let server = try await FaultServer.start(.raw(flood.bytes), tls: overTLS ? world.serverTLS : nil)
        var configuration = ClientConfiguration()
        if overTLS { configuration.tls = world.trustingAuthority }
        configuration.timeouts.connect = .seconds(120)
        configuration.timeouts.total = .seconds(90)
        let outcome: Result<CourierResponse, CourierError>
        do {
            outcome = .success(
                try await CourierClient.withClient(configuration: configuration) { client in
                    try await client.response(for: CourierRequest<CourierResponse>(path: server.url.absoluteString))
                })
        } catch let error as CourierError {
            outcome = .failure(error)
        }
        try await server.shutdown()
        switch (outcome, flood.expected) {
        case (.success(let response), nil):
            #expect(response.status == 200 && response.body == Data("ok".utf8), "\(flood.name)")
        case (.failure(let error), let expected?):
            #expect(error.kind == expected, "\(flood.name) over \(overTLS ? "TLS" : "TCP"): \(error)")
        default:
            Issue.record("\(flood.name) over \(overTLS ? "TLS" : "TCP"): \(outcome)")
        }
    }

    /// A server that accepts the connection and never answers the TLS handshake: the attempt
    /// ends at the connect timeout, as a timeout with nothing sent, on both transports.
    @Test(.timeLimit(.minutes(3)), arguments: [false, true])
    func handshakeThatNeverEndsFailsAtTheConnectTimeout(customTrust: Bool) async throws {
        let error = try await handshakeError(customTrust: customTrust) {
            $0.timeouts.connect = .milliseconds(500)
        }
        #expect(error?.kind == .timeout, "\(String(describing: error))")
        #expect(error?.requestMayHaveBeenSent == false)
    }

    /// The same server, with a connect timeout far away and a short total timeout: the
    /// request's deadline ends the handshake, on both transports.
    @Test(.timeLimit(.minutes(3)), arguments: [false, true])
    func handshakeThatNeverEndsFailsAtTheDeadline(customTrust: Bool) async throws {
        let error = try await handshakeError(customTrust: customTrust) {
            $0.timeouts.connect = .seconds(3600)
            $0.timeouts.total = .milliseconds(500)
        }
        #expect(error?.kind == .timeout, "\(String(describing: error))")
    }

    /// The error of one request to a server that never finishes a TLS handshake. The server
    /// is stopped before the client, so that the client's shutdown has no attempt to wait for.
    private func handshakeError(customTrust: Bool, configure: (inout ClientConfiguration) -> Void) async throws -> CourierError? {
        let server = try await FaultServer.start(.stall)
        let url = URL(string: "https://127.0.0.1:\(server.port)/")!
        var configuration = ClientConfiguration()
        if customTrust { configuration.tls = try TLSWorld().trustingAuthority }
        configure(&configuration)
        return try await CourierClient.withClient(configuration: configuration) { client in
            let error = await courierError { _ = try await client.response(for: CourierRequest<CourierResponse>(path: url.absoluteString)) }
            try await server.shutdown()
            return error
        }
    }

    @Test func connectionRefusedIsAConnectionFailure() async throws {
        // A port that is bound but not listened on refuses connections.
        let reserved = try ReservedPort()
        let url = reserved.url("/get")
        let error = await courierError {
            try await withClient(nil) { client in
                _ = try await client.response(for: CourierRequest<CourierResponse>(path: url.absoluteString))
            }
        }
        #expect(error?.kind == .connectionFailed)
        withExtendedLifetime(reserved) {}
    }

    @Test func bodyLargerThanTheLimitIsRefused() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.limits.maximumBodySize = 1000 }) { client in
                let declared = await courierError { _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/bytes/5000")) }
                #expect(declared?.kind == .responseTooLarge)
                let chunked = await courierError { _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/stream-bytes/5000?chunk_size=100")) }
                #expect(chunked?.kind == .responseTooLarge)
                var allowed = CourierRequest<CourierResponse>(path: "/bytes/5000")
                allowed.maximumBodySize = 5000
                let body = try await client.send(allowed).body
                #expect(body == Data(TestServer.bytes(count: 5000)))
            }
        }
    }
}
