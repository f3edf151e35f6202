import Courier
import CourierTesting
import Foundation
import NIOPosix
import Testing

/// A response read whole on Courier's own connections (the road of pinned keys) wakes its
/// reader once: when the response has ended, or when the hand-over budget (512 KiB) fills.
/// Every byte still arrives, the body limit still holds, a failure part way is still the
/// failure it was, and the connection is still reused.
@Suite("Whole bodies on Courier's own connections")
struct OwnConnectionsWholeBodyTests {
    /// The world's trust with its server's key pinned: requests go over Courier's own connections.
    private func pinned(_ world: TLSWorld) throws -> TLSPolicy {
        var policy = world.trustingAuthority
        policy.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(world.server.publicKeyPin)])]
        return policy
    }

    @Test("bodies below and above the hand-over budget arrive whole, as they stream, on one connection")
    func wholeBodies() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: try pinned(world)) { client in
                for size in [0, 100, 600_000, 3_000_000] {
                    let url = server.url("/bytes/\(size)?seed=\(size + 1)")
                    let whole = try await client.send(CourierHTTPRequest(method: .get, url: url))
                    let streamed = try await client.stream(CourierHTTPRequest(method: .get, url: url)) { response in
                        var bytes = Data()
                        for try await piece in response.body { bytes.append(piece) }
                        return bytes
                    }
                    #expect(whole.status == 200)
                    #expect(whole.protocolVersion == .http11)
                    #expect(whole.body.count == size)
                    #expect(whole.body == streamed, "\(size) bytes")
                }
                // Eight exchanges, each connection put back once its response ended whole.
                #expect(server.acceptedConnections == 1)
            }
        }
    }

    @Test("a body past the request's limit fails as too large, before the budget fills and after")
    func limit() async throws {
        let world = try TLSWorld()
        try await withTLSServer(world.serverTLS) { server in
            try await withClient(server, tls: try pinned(world)) { client in
                for (size, limit) in [(1_000, 500), (1_500_000, 700_000)] {
                    var request = CourierHTTPRequest(method: .get, url: server.url("/bytes/\(size)"))
                    request.maximumBodySize = limit
                    let error = await courierError { _ = try await client.send(request) }
                    #expect(error?.kind == .responseTooLarge, "\(size) bytes over a limit of \(limit)")
                }
                let after = try await client.send(CourierHTTPRequest(method: .get, url: server.url("/bytes/10")))
                #expect(after.body.count == 10)
            }
        }
    }

    @Test(
        "a close before the response is an empty reply, one in the body a reply cut short",
        arguments: [(FaultServer.Fault.closeBeforeResponse, ConnectionFailure.emptyReply), (.closeMidBody, .cutShort)])
    func closes(_ fault: (FaultServer.Fault, ConnectionFailure)) async throws {
        let world = try TLSWorld()
        let server = try await FaultServer.start(fault.0, tls: world.serverTLS)
        let policy = try pinned(world)
        let error = await courierError {
            try await withClient(nil, configure: { $0.tls = policy }) { client in
                _ = try await client.send(CourierHTTPRequest(method: .get, url: server.url))
            }
        }
        try await server.shutdown()
        #expect(error?.kind == .connectionFailed)
        #expect(error?.connectionFailure == fault.1, "\(fault.0): \(String(describing: error))")
    }

    @Test("a body that trickles past the total timeout ends as a timeout, its head already in")
    func trickleEndsAtTheDeadline() async throws {
        let world = try TLSWorld()
        let server = try await FaultServer.start(.trickleBody, tls: world.serverTLS)
        let policy = try pinned(world)
        let error = await courierError {
            try await withClient(nil, configure: { $0.tls = policy }) { client in
                var request = CourierHTTPRequest(method: .get, url: server.url)
                request.timeout = .seconds(1)
                _ = try await client.send(request)
            }
        }
        try await server.shutdown()
        #expect(error?.kind == .timeout, "\(String(describing: error))")
        #expect(error?.responseStarted == true, "\(String(describing: error))")
    }
}

/// Tasks on ``CourierClient/makeTaskExecutor()`` keep to connections of their own loop on
/// Courier's own connections too, as they do on AsyncHTTPClient's road, and each loop keeps up
/// to ``Limits/maximumConnectionsPerHost`` idle connections of its own.
@Suite("Courier's own connections for tasks on a loop")
struct OwnConnectionsOnALoopTests {
    @Test func tasksOnTwoLoopsKeepAConnectionEachAndPoolCallersTakeEither() async throws {
        let world = try TLSWorld()
        var policy = world.trustingAuthority
        policy.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(world.server.publicKeyPin)])]
        try await withTLSServer(world.serverTLS) { server in
            // One connection per host: each loop still keeps its own.
            try await withClient(
                server,
                configure: {
                    $0.tls = policy
                    $0.limits.maximumConnectionsPerHost = 1
                }
            ) { client in
                let (first, _, other) = try await twoExecutorsOnDifferentLoops(of: client)
                let executors = [first, other]
                var loops: [ObjectIdentifier?] = []
                // One after another, alternating between the two loops: a connection left idle
                // by one loop's task is not taken by the other's.
                for round in 0..<6 {
                    loops.append(
                        try await withTaskExecutorPreference(executors[round % 2]) {
                            let response = try await client.send(CourierHTTPRequest(method: .get, url: server.url("/bytes/10")))
                            #expect(response.body.count == 10)
                            return MultiThreadedEventLoopGroup.currentEventLoop.map { ObjectIdentifier($0) }
                        })
                }
                #expect(Set(loops).count == 2 && !loops.contains(nil))
                #expect(server.acceptedConnections == 2)
                // A caller off the loops reuses one of them.
                _ = try await client.send(CourierHTTPRequest(method: .get, url: server.url("/bytes/10")))
                #expect(server.acceptedConnections == 2)
            }
        }
    }
}
