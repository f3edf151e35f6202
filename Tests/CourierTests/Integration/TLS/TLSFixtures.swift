import Courier
import CourierTesting
import Foundation
import Testing

/// A certificate authority and a server certificate it issued for `localhost` and `127.0.0.1`.
struct TLSWorld {
    let authority: TestCertificate
    let server: TestCertificate

    init() throws {
        authority = try TestCertificates.authority()
        server = try TestCertificates.leaf(issuer: authority)
    }

    /// A server presenting `server`, issued by `authority`.
    var serverTLS: TestServerTLS { TestServerTLS(chain: [server]) }

    /// Runs `body` with a server presenting `server` and a client trusting `authority`.
    func run(_ body: (TestServer, CourierClient) async throws -> Void) async throws {
        try await withTLSServer(serverTLS) { server in
            try await withClient(server, tls: trustingAuthority) { client in try await body(server, client) }
        }
    }

    /// A policy trusting only `authority`.
    var trustingAuthority: TLSPolicy {
        TLSPolicy(trustRoots: .only([.bytes(authority.certificateDER)]))
    }
}

/// Starts an HTTPS test server with `tls`, runs `body`, stops the server.
func withTLSServer<T>(_ tls: TestServerTLS, _ body: (TestServer) async throws -> T) async throws -> T {
    try await TestServer.withServer(tls: tls, body)
}

/// Starts an HTTP/2-only server presenting `tls` (see ``HTTP2StatusServer``), runs `body` with a
/// client under `policy` and the server's URL, and stops both.
func withHTTP2Server(
    tls: TestServerTLS, policy: TLSPolicy, trailers: [(String, String)] = [], _ body: (CourierClient, URL) async throws -> Void
) async throws {
    let server = try await HTTP2StatusServer.start(status: "200", tls: tls, trailers: trailers)
    do {
        try await withClient(nil, configure: { $0.tls = policy }) { client in try await body(client, server.url) }
    } catch {
        try? await server.shutdown()
        throw error
    }
    try await server.shutdown()
}

/// A client of `server` under `policy`, shut down after `body`.
func withClient<T>(_ server: TestServer, tls policy: TLSPolicy, _ body: (CourierClient) async throws -> T) async throws -> T {
    try await withClient(server, configure: { $0.tls = policy }, body)
}

/// The `TLSFailure` of the error `operation` throws, checking it is a TLS error.
func tlsFailure(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: () async throws -> Void
) async -> TLSFailure? {
    let error = await courierError(sourceLocation: sourceLocation, operation)
    #expect(error?.kind == .tls, sourceLocation: sourceLocation)
    return error?.tlsFailure
}

/// A public-key pin that matches no certificate of these tests.
let unrelatedPin = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()

/// A new empty folder for files of one test.
func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-tls-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// Sends a GET for `path` and expects a 200.
func expectOK(_ client: CourierClient, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let response = try await client.response(for: CourierRequest<CourierResponse>(path: path))
    #expect(response.status == 200, sourceLocation: sourceLocation)
}
