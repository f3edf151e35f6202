import Courier
import CourierTesting
import CourierURLSession
import Foundation
import Testing

/// Full-duplex exchanges on every road of the default transport: a body whose next piece
/// waits for the response is sent as it is produced, and a response that ends before its
/// request body does is delivered whole at once; the connection then serves the next request.
@Suite("Full-duplex bodies")
struct DuplexTests {
    /// The roads of the default transport, and the protocol each one speaks here.
    enum Road: String, CaseIterable, Sendable {
        /// AsyncHTTPClient's, over plain HTTP/1.1 and over TLS with HTTP/1.1 or HTTP/2.
        case plain, asyncHTTPClientTLS, asyncHTTPClientHTTP2
        /// Courier's own channels (a host with pins), over HTTP/1.1 and HTTP/2.
        case channels, channelsHTTP2

        var protocolVersion: CourierResponse.ProtocolVersion {
            switch self {
            case .plain, .asyncHTTPClientTLS, .channels: .http11
            case .asyncHTTPClientHTTP2, .channelsHTTP2: .http2
            }
        }
    }

    /// Runs `body` with a client on `road` and the URL of the server's `/duplex` route (its
    /// query `query`); the client keeps one connection per host, so an exchange that never
    /// let go of it would leave the next request waiting until its timeout.
    private func withDuplexServer(on road: Road, query: String = "", _ body: (CourierClient, URL, TestServer?) async throws -> Void) async throws {
        let configure: (inout ClientConfiguration) -> Void = {
            $0.limits.maximumConnectionsPerHost = 1
            $0.timeouts.total = .seconds(60)
        }
        guard road != .plain else {
            return try await withServer { server in
                try await withClient(server, configure: configure) { client in try await body(client, server.url("/duplex" + query), server) }
            }
        }
        let world = try TLSWorld()
        var policy = world.trustingAuthority
        if road == .channels || road == .channelsHTTP2 {
            policy.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(world.server.publicKeyPin)])]
        }
        if road == .asyncHTTPClientHTTP2 || road == .channelsHTTP2 {
            let server = try await HTTP2StatusServer.start(status: "200", tls: world.serverTLS)
            do {
                try await withClient(
                    nil,
                    configure: {
                        $0.tls = policy; configure(&$0)
                    }
                ) { client in
                    try await body(client, server.url.appendingPathComponent("duplex").absoluteURL.appendingQuery(query), nil)
                }
            } catch {
                try? await server.shutdown()
                throw error
            }
            return try await server.shutdown()
        }
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(
                server,
                configure: {
                    $0.tls = policy; configure(&$0)
                }
            ) { client in try await body(client, server.url("/duplex" + query), server) }
        }
    }

    @Test("each piece goes out before the next is produced, and its echo comes back before the next is written", arguments: Road.allCases)
    func echoInterleave(road: Road) async throws {
        try await withDuplexServer(on: road) { client, url, _ in
            let turns = TurnTaking()
            var request = CourierHTTPRequest(method: .post, url: url)
            request.body = turns.echoedBody(rounds: 100, trailers: ["X-Checksum": "100"])
            let reading = try await client.stream(request) { response in
                #expect(response.head.status == 200)
                #expect(response.head.protocolVersion == road.protocolVersion)
                var reading = DuplexReading()
                for try await piece in response.body {
                    reading.pieces.append(piece)
                    turns.answered()
                }
                turns.finish()
                reading.trailers = response.body.trailers
                return reading
            }
            #expect(reading.pieces.count == 100, "one echo per piece: nothing was held back and sent together")
            #expect(reading.pieces.allSatisfy { $0 == Data("A".utf8) })
            #expect(reading.trailers?["received-bytes"] == "100")
            #expect(reading.trailers?["echo-X-Checksum"] == "100")
        }
    }

    @Test("the server speaks first, the body answers, and the response ends before the body does", arguments: Road.allCases)
    func speakInterleave(road: Road) async throws {
        try await withDuplexServer(on: road, query: "?speak=50") { client, url, _ in
            for round in 1...3 {
                let (body, pass) = TurnTaking.answeringBody()
                var request = CourierHTTPRequest(method: .post, url: url)
                request.body = body
                let reading = try await client.stream(request) { response in
                    var reading = DuplexReading()
                    for try await piece in response.body {
                        reading.pieces.append(piece)
                        pass.yield(piece)
                    }
                    pass.finish()
                    reading.trailers = response.body.trailers
                    return reading
                }
                #expect(reading.bytes == 50, "round \(round)")
                #expect(reading.trailers?["received-bytes"] == "50", "round \(round)")
            }
            // The one connection is free again once the bodies ended.
            let echo = try #require(URL(string: url.absoluteString.replacingOccurrences(of: "?speak=50", with: "")))
            let after = try await client.send(CourierHTTPRequest(method: .post, url: echo, body: .data(Data("xyz".utf8))))
            #expect(after.body == Data("xyz".utf8))
        }
    }

    @Test("a server that turns the body down at once, without reading it, is heard at once", arguments: Road.allCases)
    func refusalWithoutReading(road: Road) async throws {
        try await withDuplexServer(on: road, query: "?refuse=413") { client, url, _ in
            var request = CourierHTTPRequest(method: .post, url: url)
            // Far more than the connection's buffers hold, and it never waits on its own.
            request.body = .writing { writer in
                let piece = Data(repeating: 0x61, count: 64 * 1024)
                for _ in 0..<256 { try await writer.write(piece) }
                return [:]
            }
            let status: Int?
            do {
                status = try await client.send(request).status
            } catch let error as CourierError {
                status = error.status
            }
            #expect(status == 413, "the refusal, not the total timeout")
            let echo = try #require(URL(string: url.absoluteString.replacingOccurrences(of: "?refuse=413", with: "")))
            let after = try await client.send(CourierHTTPRequest(method: .post, url: echo, body: .data(Data("xyz".utf8))))
            #expect(after.body == Data("xyz".utf8))
        }
    }

    @Test(
        "a body of known length that fails at its end never reaches the server whole",
        arguments: [Road.plain, .asyncHTTPClientTLS, .channels]
    )
    func knownLengthBodyFailingAtItsEnd(road: Road) async throws {
        struct Changed: Error {}
        try await withDuplexServer(on: road) { client, url, server in
            var request = CourierHTTPRequest(method: .post, url: url)
            request.body = .stream(length: 6) {
                AsyncThrowingStream { continuation in
                    continuation.yield(Data("abc".utf8))
                    continuation.yield(Data("def".utf8))
                    continuation.finish(throwing: Changed())
                }
            }
            let error = await courierError { _ = try await client.send(request) }
            #expect(error?.kind == .invalidBody)
            #expect(error?.underlyingError is Changed)
            let after = try await client.send(CourierHTTPRequest(method: .post, url: url, body: .data(Data("xyz".utf8))))
            #expect(after.body == Data("xyz".utf8))
            // The server notes a request once its body has ended: only the second one did. The
            // echo can reach the client before the server has read that end, so wait for it.
            let recording = try #require(server)
            #expect(await eventually { !recording.receivedRequests.isEmpty })
            #expect(recording.receivedRequests.map(\.body) == [Array("xyz".utf8)])
        }
    }

    @Test("a body that fails after the response began fails the reading with the body's error", arguments: Road.allCases)
    func bodyFailsMidway(road: Road) async throws {
        struct Broken: Error {}
        try await withDuplexServer(on: road) { client, url, _ in
            let turns = TurnTaking()
            var request = CourierHTTPRequest(method: .post, url: url)
            request.body = .writing { writer in
                try await writer.write(Data("A".utf8))
                _ = await turns.waitForTurn()
                throw Broken()
            }
            let error = await courierError {
                try await client.stream(request) { response in
                    for try await _ in response.body { turns.answered() }
                }
            }
            #expect(error?.kind == .invalidBody, "\(String(describing: error))")
            #expect(error?.underlyingError is Broken)
            // The connection the broken body left is not used again; a new one serves.
            let after = try await client.send(CourierHTTPRequest(method: .post, url: url, body: .data(Data("xyz".utf8))))
            #expect(after.body == Data("xyz".utf8))
        }
    }
}

/// A transport that hands over nothing of the response before the body has ended refuses a
/// body declared full duplex before sending anything.
@Suite("Full-duplex bodies on URLSession")
struct DuplexOnURLSessionTests {
    @Test("URLSession on Linux refuses a duplex body with a typed error, and sends nothing")
    func refused() async throws {
        try await withServer { server in
            let configuration = ClientConfiguration(baseURL: server.baseURL)
            let transport = try CourierURLSessionTransport(configuration: configuration)
            try await CourierClient.withClient(configuration: configuration, transport: transport) { client in
                var request = CourierHTTPRequest(method: .post, url: server.url("/duplex"))
                request.body = TurnTaking().echoedBody(rounds: 3)
                let error = await courierError { _ = try await client.send(request) }
                #expect(error?.kind == .invalidConfiguration)
                #expect(error?.message.contains("isDuplex") == true)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }
}

extension URL {
    /// This URL with `query` (`""`, or `?…`) appended.
    fileprivate func appendingQuery(_ query: String) -> URL {
        query.isEmpty ? self : URL(string: absoluteString + query)!
    }
}
