import Courier
import CourierTesting
import CourierURLSession
import Foundation
import Testing

/// A request's own connection settings (`CourierRequest.connection`): each falls back to the
/// client's on its own, holds on both roads of the default transport (AsyncHTTPClient, and
/// Courier's channels for pinned hosts), and never rides a connection made under other
/// settings.
@Suite("Per-request connection settings")
struct ConnectionOverridesTests {
    /// A request of `path` with `change` applied to its connection settings.
    private func request(_ path: String, _ change: (inout ConnectionOverrides) -> Void) -> CourierRequest<CourierResponse> {
        var request = CourierRequest<CourierResponse>(path: path)
        change(&request.connection)
        return request
    }

    /// The status of a request of `path` with `change` applied, sent by `client`.
    private func status(of path: String, from client: CourierClient, _ change: (inout ConnectionOverrides) -> Void) async throws -> Int {
        try await client.response(for: request(path, change)).status
    }

    @Test func aShorterReadTimeoutOfTheRequestFailsASilentServer() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let buffered = await courierError {
                    _ = try await client.response(for: request("/gate/silent") { $0.readTimeout = .after(.milliseconds(200)) })
                }
                #expect(buffered?.kind == .timeout)
                let streamed = await courierError {
                    _ = try await client.stream(request("/gate/silent") { $0.readTimeout = .after(.milliseconds(200)) }) { _ in }
                }
                #expect(streamed?.kind == .timeout)
                // The client's own read timeout (60 s) still applies to the next request.
                let response = try await client.response(for: request("/delay/1") { _ in })
                #expect(response.status == 200)
            }
        }
    }

    @Test func anUnlimitedReadTimeoutOfTheRequestOutwaitsTheClients() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.timeouts.read = .milliseconds(200) }) { client in
                let response = try await client.response(for: request("/delay/1") { $0.readTimeout = .unlimited })
                #expect(response.status == 200)
                let error = await courierError { _ = try await client.response(for: request("/gate/silent") { _ in }) }
                #expect(error?.kind == .timeout)
            }
        }
    }

    @Test func decompressionIsTheRequestsToTurnOffOrOn() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let raw = try await client.response(for: request("/gzip") { $0.decompression = .disabled })
                #expect(raw.headers["Content-Encoding"] == "gzip")
                #expect(raw.body.prefix(2) == Data([0x1f, 0x8b]))
                #expect(server.receivedRequests.last?.header("Accept-Encoding") == nil)
            }
            try await withClient(server, configure: { $0.decompression = .disabled }) { client in
                let decoded = try await client.response(for: request("/gzip") { $0.decompression = .enabled(maximumRatio: 100) })
                #expect(decoded.text().contains("gzipped"))
                #expect(server.receivedRequests.last?.header("Accept-Encoding") == "gzip, deflate, br, zstd")
            }
        }
    }

    @Test func aProxyOfTheRequestCarriesItAloneOnConnectionsOfItsOwn() async throws {
        try await withProxy { server, proxy in
            try await withClient(server) { client in
                let status1 = try await status(of: "/get", from: client, { _ in })
                #expect(status1 == 200)
                let through = Proxy(host: "127.0.0.1", port: proxy.port)
                let status2 = try await status(of: "/get", from: client, { $0.proxy = .through(through) })
                #expect(status2 == 200)
                #expect(proxy.tunnels == 1)
                // The direct connection kept alive from the first request is not the proxy's,
                // and the proxy's tunnel is not the direct requests'.
                let status3 = try await status(of: "/get", from: client, { _ in })
                #expect(status3 == 200)
                let status4 = try await status(of: "/get", from: client, { $0.proxy = .through(through) })
                #expect(status4 == 200)
                #expect(proxy.receivedRequests.allSatisfy { $0.method == "CONNECT" && $0.uri == "127.0.0.1:\(server.port)" })
            }
            #expect(server.receivedRequests.count == 4)
            try await withClient(server, configure: { $0.proxy = Proxy(host: "127.0.0.1", port: proxy.port) }) { client in
                let tunnels = proxy.tunnels
                let status5 = try await status(of: "/get", from: client, { $0.proxy = .direct })
                #expect(status5 == 200)
                #expect(proxy.tunnels == tunnels)
            }
        }
    }

    @Test func aTLSPolicyOfTheRequestTrustsAndPinsForItAlone() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server) { client in
                // The client trusts the system's roots only.
                let refused = await courierError { _ = try await client.response(for: request("/get") { _ in }) }
                #expect(refused?.kind == .tls)
                let trusted = try await client.response(for: request("/get") { $0.tls = world.trustingAuthority })
                #expect(trusted.status == 200)
                var pinned = world.trustingAuthority
                pinned.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(world.server.publicKeyPin)])]
                let status6 = try await status(of: "/get", from: client, { $0.tls = pinned })
                #expect(status6 == 200)
                var wrongPin = world.trustingAuthority
                let other = try TestCertificates.authority("Other")
                wrongPin.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(other.publicKeyPin)])]
                let mismatch = await courierError { _ = try await client.response(for: request("/get") { $0.tls = wrongPin }) }
                #expect(mismatch?.tlsFailure == .pinMismatch)
            }
        }
    }

    @Test func onPinnedConnectionsTheRequestsReadTimeoutAndProxyHold() async throws {
        let world = try TLSWorld()
        var pinned = world.trustingAuthority
        pinned.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(world.server.publicKeyPin)])]
        try await withTLSServer(world.serverTLS) { server in
            try await ForwardProxy.withProxy { proxy in
                try await withClient(
                    server,
                    configure: { [pinned] in
                        $0.tls = pinned; $0.timeouts.read = .milliseconds(200)
                    }
                ) { client in
                    let silent = await courierError { _ = try await client.response(for: request("/gate/silent") { _ in }) }
                    #expect(silent?.kind == .timeout)
                    let patient = try await client.response(for: request("/delay/1") { $0.readTimeout = .unlimited })
                    #expect(patient.status == 200)
                    let through = Proxy(host: "127.0.0.1", port: proxy.port)
                    // Without the client's 200 ms read timeout, which a loaded machine can
                    // outlast while the tunnel and the handshake are made.
                    let proxied = try await client.response(
                        for: request("/get") {
                            $0.proxy = .through(through)
                            $0.readTimeout = .unlimited
                        })
                    #expect(proxied.status == 200)
                    #expect(proxy.tunnels == 1)
                }
            }
        }
    }

    @Test func valuesOutOfRangeAreRefusedBeforeAnythingIsSent() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let changes: [(inout ConnectionOverrides) -> Void] = [
                    { $0.readTimeout = .after(.zero) },
                    { $0.connectTimeout = .seconds(-1) },
                    { $0.decompression = .enabled(maximumRatio: 0) },
                    { $0.proxy = .through(Proxy(host: "127.0.0.1", port: 70_000)) },
                    { $0.proxy = .through(Proxy(host: "", port: 3128)) },
                ]
                for change in changes {
                    let error = await courierError { _ = try await client.response(for: request("/get", change)) }
                    #expect(error?.kind == .invalidConfiguration)
                }
            }
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func theSetsOfConnectionsPerSettingsAreBoundedOnAsyncHTTPClientsRoad() async throws {
        // An https host without pins goes through AsyncHTTPClient, whose connections are kept
        // per connect timeout.
        let world = try TLSWorld()
        try await world.run { server, client in
            // Each connect timeout is a set of connections of its own; 32 are allowed
            // besides the client's.
            for seconds in 1...32 {
                let response = try await client.response(for: request("/get") { $0.connectTimeout = .seconds(1000 + seconds) })
                #expect(response.status == 200)
            }
            let error = await courierError {
                _ = try await client.response(for: request("/get") { $0.connectTimeout = .seconds(2000) })
            }
            #expect(error?.kind == .invalidConfiguration)
            // Settings already in use still work.
            let status7 = try await status(of: "/get", from: client, { $0.connectTimeout = .seconds(1001) })
            #expect(status7 == 200)
            #expect(server.receivedRequests.count == 33)
        }
    }

    @Test func onTheClientsOwnConnectionsAConnectTimeoutIsNoSetOfConnections() async throws {
        // Plain http goes over the client's own connections, kept per origin: a connect
        // timeout applies to the connections a request opens, and any of them carries the
        // next request, whatever its timeout.
        try await withServer { server in
            try await withClient(server) { client in
                for seconds in 1...40 {
                    let response = try await client.response(for: request("/get") { $0.connectTimeout = .seconds(1000 + seconds) })
                    #expect(response.status == 200)
                }
            }
            #expect(server.receivedRequests.count == 40)
            #expect(server.acceptedConnections == 1)
        }
    }

    @Test func theURLSessionTransportHonoursWhatItCanAndRefusesTheRest() async throws {
        try await withServer { server in
            let configuration = ClientConfiguration(baseURL: server.baseURL)
            let transport = try CourierURLSessionTransport(configuration: configuration)
            try await CourierClient.withClient(configuration: configuration, transport: transport) { client in
                let refusals: [(inout ConnectionOverrides) -> Void] = [
                    { $0.connectTimeout = .seconds(5) },
                    { $0.proxy = .direct },
                    { $0.tls = TLSPolicy() },
                ]
                for change in refusals {
                    let error = await courierError { _ = try await client.response(for: request("/get", change)) }
                    #expect(error?.kind == .invalidConfiguration)
                }
                #expect(server.receivedRequests.isEmpty)
                let silent = await courierError {
                    _ = try await client.response(for: request("/gate/silent") { $0.readTimeout = .after(.milliseconds(300)) })
                }
                #expect(silent?.kind == .timeout)
            }
            try await transport.shutdown()
        }
    }
}
