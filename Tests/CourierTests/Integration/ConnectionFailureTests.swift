import Courier
import CourierTesting
import Foundation
import Testing

/// A connection failure says what happened to the connection, on both transports.
@Suite("Connection failure reasons")
struct ConnectionFailureTests {
    /// The error of one GET of `url`, with generous limits for a loaded machine.
    func failure(of url: URL, tls: TLSWorld? = nil) async -> CourierError? {
        var configuration = ClientConfiguration()
        if let tls { configuration.tls = tls.trustingAuthority }
        configuration.timeouts.connect = .seconds(60)
        configuration.timeouts.total = .seconds(90)
        return await courierError {
            try await CourierClient.withClient(configuration: configuration) { client in
                _ = try await client.response(for: CourierRequest<CourierResponse>(path: url.absoluteString))
            }
        }
    }

    @Test func aPortThatRefusesIsRefusedAndNothingWasSent() async throws {
        let reserved = try ReservedPort()
        let error = await failure(of: reserved.url("/get"))
        withExtendedLifetime(reserved) {}
        #expect(error?.kind == .connectionFailed)
        #expect(error?.connectionFailure == .refused, "\(String(describing: error))")
        #expect(error?.requestMayHaveBeenSent == false)
    }

    @Test func aNameUnderInvalidIsNotFound() async throws {
        // RFC 6761: names under .invalid never resolve.
        let error = await failure(of: URL(string: "http://courier-test.invalid/get")!)
        #expect(error?.kind == .connectionFailed)
        #expect(error?.connectionFailure == .hostNotFound, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("connectionFailed (hostNotFound): ") == true)
    }

    @Test(
        "a close before the response is an empty reply, one in the body a reply cut short, over TCP and TLS",
        arguments: [(FaultServer.Fault.closeBeforeResponse, ConnectionFailure.emptyReply), (.closeMidBody, .cutShort)], [false, true])
    func closes(_ fault: (FaultServer.Fault, ConnectionFailure), overTLS: Bool) async throws {
        let world = try TLSWorld()
        let server = try await FaultServer.start(fault.0, tls: overTLS ? world.serverTLS : nil)
        let error = await failure(of: server.url, tls: overTLS ? world : nil)
        try await server.shutdown()
        #expect(error?.kind == .connectionFailed)
        #expect(error?.connectionFailure == fault.1, "\(fault.0) over \(overTLS ? "TLS" : "TCP"): \(String(describing: error))")
    }
}
