import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import NIOSSL
import Testing

@testable import Courier

@Suite("CourierResponse.protocolVersion: the version of HTTP the response arrived over")
struct ProtocolVersionTests {
    @Test(
        "an HTTP/1.0 response over the default transport, buffered and streamed",
        arguments: [false, true])
    func http10(streamed: Bool) async throws {
        let server = try await FaultServer.start(.raw(Array("HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi".utf8)))
        defer { Task { try? await server.shutdown() } }
        try await withClient(nil) { client in
            let request = CourierHTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:\(server.port)/")!)
            let version: CourierResponse.ProtocolVersion
            if streamed {
                version = try await client.stream(request) { $0.head.protocolVersion }
            } else {
                let response = try await client.send(request)
                #expect(response.body == Data("hi".utf8))
                version = response.protocolVersion
            }
            #expect(version == .http10)
            #expect(version.description == "HTTP/1.0")
        }
    }

    @Test("an HTTP/1.1 response over the default transport and over Courier's own TLS channels")
    func http11() async throws {
        try await TestServer.withServer { server in
            try await withClient(server) { client in
                let response = try await client.send(CourierHTTPRequest(method: .get, url: server.url("/get")))
                #expect(response.protocolVersion == .http11)
            }
        }
        try await TLSWorld().run { server, client in
            let response = try await client.send(CourierHTTPRequest(method: .get, url: server.url("/get")))
            #expect(response.status == 200)
            #expect(response.protocolVersion == .http11)
        }
    }

    @Test("an HTTP/2 response over TLS, and the observers hear its version too")
    func http2() async throws {
        let world = try TLSWorld()
        let server = try await HTTP2StatusServer.start(status: "200", tls: world.serverTLS)
        defer { Task { try? await server.shutdown() } }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(world.authority.certificateDER), format: .der)])
        let transport = CourierAsyncHTTPClientTransport(configuration: TransportConfiguration(connectTimeout: .seconds(120)), logger: nil, tls: tls)
        defer { Task { try? await transport.shutdown() } }
        let heard = VersionRecorder()
        var configuration = ClientConfiguration()
        configuration.observers = [heard]
        let client = CourierClient(configuration: configuration, transport: transport)
        let response = try await client.send(CourierHTTPRequest(method: .get, url: server.url))
        #expect(response.status == 200)
        #expect(response.protocolVersion == .http2)
        #expect(response.protocolVersion.description == "HTTP/2")
        #expect(heard.versions == [.http2])
    }

    @Test("versions print as status lines spell them and order by number")
    func descriptions() {
        #expect(CourierResponse.ProtocolVersion.http10.description == "HTTP/1.0")
        #expect(CourierResponse.ProtocolVersion.http11.description == "HTTP/1.1")
        #expect(CourierResponse.ProtocolVersion.http3.description == "HTTP/3")
        #expect(CourierResponse.ProtocolVersion(major: 2, minor: 1).description == "HTTP/2.1")
        #expect(CourierResponse.ProtocolVersion.http10 < .http11 && CourierResponse.ProtocolVersion.http11 < .http2)
        #expect(CourierResponse(status: 200, url: URL(string: "http://example.test/")!).protocolVersion == .http11)
    }
}

/// Records the protocol version of every response head an exchange received.
private final class VersionRecorder: RequestObserver, Sendable {
    private let recorded = NIOLockedValueBox<[CourierResponse.ProtocolVersion]>([])

    var versions: [CourierResponse.ProtocolVersion] { recorded.withLockedValue { $0 } }

    func exchangeDidReceive(_ event: ExchangeEvent) {
        if let version = event.protocolVersion { recorded.withLockedValue { $0.append(version) } }
    }
}
