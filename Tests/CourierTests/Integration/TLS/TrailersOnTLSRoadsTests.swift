import Courier
import CourierTesting
import Foundation
import Testing

/// Trailers on the TLS roads of the default transport: over HTTP/2 on AsyncHTTPClient's
/// (custom roots) and on Courier's own channels (pins), whose server ends its response with
/// `x-checksum` and echoes each trailer of the request as `echo-NAME`; and over HTTP/1.1 on
/// the channels.
@Suite("Trailers on the TLS roads")
struct TrailersOnTLSRoadsTests {
    enum Road: String, CaseIterable, Sendable {
        case asyncHTTPClient, channels
    }

    private func withServer(on road: Road, _ body: (CourierClient, URL) async throws -> Void) async throws {
        let world = try TLSWorld()
        var policy = world.trustingAuthority
        if road == .channels { policy.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(world.server.publicKeyPin)])] }
        try await withHTTP2Server(tls: world.serverTLS, policy: policy, trailers: [("x-checksum", "abc")], body)
    }

    @Test("a response's trailers arrive, buffered and streamed", arguments: Road.allCases)
    func responseTrailers(road: Road) async throws {
        try await withServer(on: road) { client, url in
            let response = try await client.send(CourierHTTPRequest(method: .get, url: url))
            #expect(response.protocolVersion == .http2)
            #expect(response.body == Data("hi".utf8))
            #expect(response.trailers["x-checksum"] == "abc")
            #expect(response.headers["x-checksum"] == nil)
            let streamed = try await client.stream(CourierHTTPRequest(method: .get, url: url)) { response in
                (try await response.body.collect(upTo: 100), response.body.trailers)
            }
            #expect(streamed.0 == Data("hi".utf8))
            #expect(streamed.1?["x-checksum"] == "abc")
        }
    }

    @Test("a written body's trailers reach the server", arguments: Road.allCases)
    func requestTrailers(road: Road) async throws {
        try await withServer(on: road) { client, url in
            var request = CourierHTTPRequest(method: .post, url: url)
            request.body = writtenBody(trailers: ["x-sum": "6", "x-parts": "2"])
            let response = try await client.send(request)
            #expect(response.protocolVersion == .http2)
            #expect(response.trailers["echo-x-sum"] == "6")
            #expect(response.trailers["echo-x-parts"] == "2")
            #expect(response.trailers["x-checksum"] == "abc")
        }
    }

    @Test("trailers go both ways over HTTP/1.1 on pinned connections")
    func pinnedHTTP1() async throws {
        let world = try TLSWorld()
        var policy = world.trustingAuthority
        policy.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(world.server.publicKeyPin)])]
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: policy) { client in
                var request = CourierHTTPRequest(method: .post, url: server.url("/trailers?X-Checksum=abc&coding=gzip"))
                request.body = writtenBody(trailers: ["X-Sum": "6"])
                let response = try await client.send(request)
                #expect(response.protocolVersion == .http11)
                #expect(response.trailers["X-Checksum"] == "abc")
                let echo = try JSONDecoder().decode(TrailerEcho.self, from: response.body)
                #expect(echo.length == 6)
                #expect(echo.trailers == ["X-Sum": "6"])
            }
        }
    }
}
