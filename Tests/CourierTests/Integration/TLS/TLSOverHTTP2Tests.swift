import Courier
import CourierTesting
import Foundation
import Testing

/// Every TLS setting keeps the HTTP version a server offers: a server that speaks only HTTP/2
/// is reached over HTTP/2 with custom roots, a client certificate, pins or a TLS floor.
@Suite("TLS settings over HTTP/2")
struct TLSOverHTTP2Tests {
    /// The policies each setting gives, against a server presenting `world`'s certificate.
    enum Setting: String, CaseIterable, Sendable {
        case customRoots, clientCertificate, pins, floor
    }

    /// Runs `body` with an HTTP/2-only server (requiring a client certificate for
    /// `.clientCertificate`) and a client under `setting`.
    private func withHTTP2(_ setting: Setting, _ body: (CourierClient, URL) async throws -> Void) async throws {
        let world = try TLSWorld()
        let clientAuthority = try TestCertificates.authority("Client CA")
        let clientCertificate = try TestCertificates.leaf("ada", hosts: ["ada.test"], issuer: clientAuthority, client: true)
        var serverTLS = world.serverTLS
        var policy = world.trustingAuthority
        switch setting {
        case .customRoots:
            break
        case .clientCertificate:
            serverTLS = TestServerTLS(chain: [world.server], clientAuthority: clientAuthority)
            policy.clientIdentity = .pem(
                certificate: .bytes(Data(clientCertificate.certificatePEM.utf8)), privateKey: .bytes(Data(clientCertificate.privateKeyPEM.utf8))
            )
        case .pins:
            policy.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(world.server.publicKeyPin)])]
        case .floor:
            policy.minimumVersion = .tls13
        }
        try await withHTTP2Server(tls: serverTLS, policy: policy, body)
    }

    @Test("a TLS setting does not cost HTTP/2, buffered or streamed", arguments: Setting.allCases)
    func http2IsKept(setting: Setting) async throws {
        try await withHTTP2(setting) { client, url in
            let response = try await client.send(CourierHTTPRequest(method: .get, url: url))
            #expect(response.status == 200)
            #expect(response.body == Data("hi".utf8))
            #expect(response.protocolVersion == .http2)
            let streamed = try await client.stream(CourierHTTPRequest(method: .get, url: url)) { response in
                (response.head.protocolVersion, try await response.body.collect(upTo: 100))
            }
            #expect(streamed.0 == .http2)
            #expect(streamed.1 == Data("hi".utf8))
        }
    }

    @Test("eight requests at once under a TLS setting all arrive over HTTP/2", arguments: Setting.allCases)
    func concurrentRequests(setting: Setting) async throws {
        try await withHTTP2(setting) { client, url in
            let versions = try await withThrowingTaskGroup(of: CourierResponse.ProtocolVersion.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let response = try await client.send(CourierHTTPRequest(method: .get, url: url))
                        #expect(response.status == 200)
                        return response.protocolVersion
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(versions == Array(repeating: .http2, count: 8))
        }
    }
}
