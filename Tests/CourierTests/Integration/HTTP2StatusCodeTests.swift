import CourierTesting
import Foundation
import NIOSSL
import Testing

@testable import Courier

/// HTTP/2 is spoken by AsyncHTTPClient's transport when the server offers it; its `:status`
/// is text, and NIOHTTP2 and AsyncHTTPClient stop the process on some of it.
@Suite("HTTP/2 status codes a server may send")
struct HTTP2StatusCodeTests {
    /// Runs `body` with a client whose default transport trusts `world`'s authority, and a
    /// server answering with `:status` `status`.
    private func withHTTP2(status: String, _ body: (CourierClient, URL) async throws -> Void) async throws {
        let world = try TLSWorld()
        let server = try await HTTP2StatusServer.start(status: status, tls: world.serverTLS)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(world.authority.certificateDER), format: .der)])
        // A generous connect timeout: the whole suite loads the machine, and the handshake waits behind it.
        let transport = CourierAsyncHTTPClientTransport(configuration: TransportConfiguration(connectTimeout: .seconds(120)), logger: nil, tls: tls)
        let client = CourierClient(configuration: ClientConfiguration(), transport: transport)
        do {
            try await body(client, server.url)
        } catch {
            try? await transport.shutdown()
            try? await server.shutdown()
            throw error
        }
        try await transport.shutdown()
        try await server.shutdown()
    }

    @Test(
        "a :status of three digits from 200 to 999 is delivered over HTTP/2, buffered or streamed",
        arguments: ["201", "600", "999"])
    func validStatus(status: String) async throws {
        try await withHTTP2(status: status) { client, url in
            var request = CourierRequest<CourierResponse>(path: url.absoluteString)
            request.validators = []
            let response = try await client.send(request)
            #expect(response.status == Int(status))
            #expect(response.body == Data("hi".utf8))
            let streamed = try await client.stream(CourierHTTPRequest(method: .get, url: url)) { response in
                (response.head.status, try await response.body.collect(upTo: 100))
            }
            #expect(streamed.0 == Int(status))
            #expect(streamed.1 == Data("hi".utf8))
        }
    }

    @Test(
        "a :status that is not three digits from 100 to 999 is a typed error, buffered or streamed",
        arguments: ["", "42", "099", "-5", "1000", "2000", "abc", "20x", "+200", "0200"])
    func invalidStatus(status: String) async throws {
        try await withHTTP2(status: status) { client, url in
            var request = CourierRequest<CourierResponse>(path: url.absoluteString)
            request.validators = []
            let error = await courierError { _ = try await client.send(request) }
            #expect(error?.kind == .malformedResponse, "\(String(describing: error))")
            let streamed = await courierError { _ = try await client.stream(CourierRequest<Void>(path: url.absoluteString)) { _ in } }
            #expect(streamed?.kind == .malformedResponse, "\(String(describing: streamed))")
        }
    }
}
