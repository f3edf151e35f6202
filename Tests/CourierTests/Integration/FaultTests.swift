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
    ]

    @Test(arguments: 0..<cases.count)
    func faultEndsInItsTypedError(index: Int) async throws {
        let (fault, expected) = Self.cases[index]
        let server = try await FaultServer.start(fault)
        var configuration = ClientConfiguration()
        // Only the stall needs a short read timeout; the other faults must fail on their own,
        // so they get limits that a loaded machine never reaches.
        if case .stall = fault {
            configuration.timeouts.read = .milliseconds(500)
        } else {
            configuration.timeouts.read = .seconds(30)
        }
        configuration.timeouts.total = .seconds(60)
        let error = await courierError {
            try await Client.withClient(configuration: configuration) { client in
                _ = try await client.response(for: Request<Response>(path: server.url.absoluteString))
            }
        }
        try await server.shutdown()
        #expect(error?.kind == expected, "fault \(fault) gave \(String(describing: error))")
        #expect(error?.url != nil)
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
