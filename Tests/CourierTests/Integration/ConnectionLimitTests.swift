import Courier
import CourierTesting
import Foundation
import Testing

/// `Limits.maximumConnectionsPerHost` on Courier's own connections (every plain http request):
/// requests in flight beyond it wait for a connection, in order, up to the connect timeout, as
/// on AsyncHTTPClient's road.
@Suite("Connections per host on the client's own connections")
struct ConnectionLimitTests {
    /// A client of `server` with `connections` per host and eight requests per host.
    private func withLimitedClient(_ server: TestServer, connections: Int, _ body: (CourierClient) async throws -> Void) async throws {
        try await withClient(
            server,
            configure: {
                $0.limits.maximumConnectionsPerHost = connections
                $0.limits.maximumConcurrentRequestsPerHost = 8
                $0.retryPolicy = .none
            }, body)
    }

    /// A request of `/gate/NAME` from `client`, once it waits at the gate of `server`.
    private func request(atGate name: String, of server: TestServer, from client: CourierClient) async -> Task<Int, any Error> {
        let held = Task { try await client.response(for: CourierRequest<CourierResponse>(path: "/gate/\(name)")).status }
        #expect(await eventually { server.requestsWaiting(atGate: name) == 1 })
        return held
    }

    /// Opens the gate `name` of `server` and expects `held` to end with a 200.
    private func expectOK(_ held: Task<Int, any Error>, once name: String, opensOn server: TestServer) async throws {
        server.openGate(name)
        let status = try await held.value
        #expect(status == 200)
    }

    @Test func requestsBeyondTheConnectionsWaitForOne() async throws {
        try await withServer { server in
            try await withLimitedClient(server, connections: 2) { client in
                try await withThrowingTaskGroup(of: Int.self) { group in
                    // Distinct URLs, so that none is coalesced with another.
                    for number in 0..<8 {
                        group.addTask { try await client.response(for: CourierRequest<CourierResponse>(path: "/gate/eight?n=\(number)")).status }
                    }
                    // Two reach the server; the other six wait for their connections.
                    #expect(await eventually { server.requestsWaiting(atGate: "eight") == 2 })
                    server.openGate("eight")
                    var statuses: [Int] = []
                    for try await status in group { statuses.append(status) }
                    #expect(statuses == Array(repeating: 200, count: 8))
                }
            }
            #expect(server.receivedRequests.count == 8)
            #expect(server.acceptedConnections == 2)
        }
    }

    /// Runs `body` with a server and a client of one connection per host, while a request
    /// holds that connection at a gate; the request is then let go, and must succeed.
    private func withTheConnectionBusy(_ body: (TestServer, CourierClient) async throws -> Void) async throws {
        try await withServer { server in
            try await withLimitedClient(server, connections: 1) { client in
                let held = await request(atGate: "held", of: server, from: client)
                try await body(server, client)
                try await expectOK(held, once: "held", opensOn: server)
            }
        }
    }

    @Test func aRequestThatWaitsLongerThanTheConnectTimeoutFailsUnsent() async throws {
        try await withTheConnectionBusy { server, client in
            var waiting = CourierRequest<CourierResponse>(path: "/get")
            waiting.connection.connectTimeout = .milliseconds(200)
            let error = await courierError { _ = try await client.response(for: waiting) }
            #expect(error?.kind == .timeout)
            #expect(error?.requestMayHaveBeenSent == false)
            // A waiting request that is cancelled leaves the line too.
            let cancelled = Task { try await client.response(for: CourierRequest<CourierResponse>(path: "/get?cancelled")) }
            cancelled.cancel()
            #expect(await cancelled.result.failure != nil)
            #expect(server.receivedRequests.count == 1)
            #expect(server.acceptedConnections == 1)
        }
    }

    @Test func aConnectionGivenBackGoesToTheRequestWaitingForIt() async throws {
        try await withServer { server in
            try await withLimitedClient(server, connections: 1) { client in
                let held = await request(atGate: "first", of: server, from: client)
                let waiting = Task { try await client.response(for: CourierRequest<CourierResponse>(path: "/get?waiting")).status }
                try await expectOK(held, once: "first", opensOn: server)
                let status = try await waiting.value
                #expect(status == 200)
            }
            #expect(server.receivedRequests.count == 2)
            #expect(server.acceptedConnections == 1)
        }
    }

    /// Sends `count` requests with distinct URLs to the gate `name`, expects `waiting` of them
    /// to reach the server at once, opens the gate and expects every one to succeed.
    private func expectAtOnce(_ waiting: Int, of count: Int, atGate name: String, of server: TestServer, from client: CourierClient) async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for number in 0..<count {
                group.addTask { try await client.response(for: CourierRequest<CourierResponse>(path: "/gate/\(name)?n=\(number)")).status }
            }
            #expect(await eventually { server.requestsWaiting(atGate: name) == waiting })
            server.openGate(name)
            var statuses: [Int] = []
            for try await status in group { statuses.append(status) }
            #expect(statuses == Array(repeating: 200, count: count))
        }
    }

    /// Either per-host limit raised alone past the eight of the defaults: the other follows,
    /// and every connection carries a request at once.
    @Test(arguments: [true, false])
    func onePerHostLimitRaisedAloneRaisesTheOther(raisingConnections: Bool) async throws {
        let limit = raisingConnections ? 12 : 10
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    if raisingConnections { $0.limits.maximumConnectionsPerHost = limit } else { $0.limits.maximumConcurrentRequestsPerHost = limit }
                }
            ) { client in
                #expect(client.configuration.limits.maximumConcurrentRequestsPerHost == limit)
                #expect(client.configuration.limits.maximumConnectionsPerHost == limit)
                try await expectAtOnce(limit, of: limit + 2, atGate: "raised", of: server, from: client)
            }
            #expect(server.acceptedConnections == limit)
        }
    }

    @Test func perHostLimitsSetApartStayApart() async throws {
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.limits.maximumConnectionsPerHost = 12
                    $0.limits.maximumConcurrentRequestsPerHost = 3
                }
            ) { client in
                try await expectAtOnce(3, of: 6, atGate: "three", of: server, from: client)
            }
            // The limit on requests in flight, not on connections, held the others back.
            #expect(server.acceptedConnections == 3)
        }
    }

    @Test func tasksOnALoopHaveConnectionsOfTheirOwn() async throws {
        try await withTheConnectionBusy { server, client in
            // The pool's one connection is busy; a task on a loop opens one of its loop.
            let status = try await withTaskExecutorPreference(client.makeTaskExecutor()) {
                try await client.response(for: CourierRequest<CourierResponse>(path: "/get")).status
            }
            #expect(status == 200)
            #expect(server.acceptedConnections == 2)
        }
    }
}

extension Result {
    /// The error, if it is a failure.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
