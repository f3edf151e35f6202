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
        configuration.timeouts.read = .seconds(30)
        configuration.timeouts.total = .seconds(60)
        switch fault {
        case .stall: configuration.timeouts.read = .milliseconds(500)
        case .trickleHead, .trickleBody: configuration.timeouts.total = .seconds(1)
        default: break
        }
        let error = await courierError {
            try await Client.withClient(configuration: configuration) { client in
                _ = try await client.response(for: Request<Response>(path: server.url.absoluteString))
            }
        }
        try await server.shutdown()
        #expect(error?.kind == expected, "fault \(fault) over \(overTLS ? "TLS" : "TCP") gave \(String(describing: error))")
        #expect(error?.url != nil)
    }

    /// A server that accepts the connection and never answers the TLS handshake: the attempt
    /// ends at the connect timeout, as a timeout with nothing sent, on both transports.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func handshakeThatNeverEndsFailsAtTheConnectTimeout(customTrust: Bool) async throws {
        let error = try await handshakeError(customTrust: customTrust) {
            $0.timeouts.connect = .milliseconds(500)
        }
        #expect(error?.kind == .timeout, "\(String(describing: error))")
        #expect(error?.requestMayHaveBeenSent == false)
    }

    /// The same server, with a connect timeout far away and a short total timeout: the
    /// request's deadline ends the handshake, on both transports.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
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
        return try await Client.withClient(configuration: configuration) { client in
            let error = await courierError { _ = try await client.response(for: Request<Response>(path: url.absoluteString)) }
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
                _ = try await client.response(for: Request<Response>(path: url.absoluteString))
            }
        }
        #expect(error?.kind == .connectionFailed)
        withExtendedLifetime(reserved) {}
    }

    @Test func bodyLargerThanTheLimitIsRefused() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.limits.maximumBodySize = 1000 }) { client in
                let declared = await courierError { _ = try await client.response(for: Request<Response>(path: "/bytes/5000")) }
                #expect(declared?.kind == .responseTooLarge)
                let chunked = await courierError { _ = try await client.response(for: Request<Response>(path: "/stream-bytes/5000?chunk_size=100")) }
                #expect(chunked?.kind == .responseTooLarge)
                var allowed = Request<Response>(path: "/bytes/5000")
                allowed.maximumBodySize = 5000
                let body = try await client.send(allowed).body
                #expect(body == Data(TestServer.bytes(count: 5000)))
            }
        }
    }
}
