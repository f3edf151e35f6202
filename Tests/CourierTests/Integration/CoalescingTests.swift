import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite("Coalescing of identical requests")
struct CoalescingTests {
    /// How many requests for `path` the server received.
    private func received(_ server: TestServer, _ path: String) -> Int {
        server.receivedRequests.filter { $0.path == path }.count
    }

    @Test func aThousandConcurrentIdenticalGETsMakeOneUpstreamRequest() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<1000 {
                        group.addTask { try await client.response(for: CourierRequest<Data>(path: "/gate/thousand")).status }
                    }
                    // The server holds its answer until every request has joined the flight.
                    #expect(await eventually { client.coalescer.waiting == 1000 && server.requestsWaiting(atGate: "thousand") == 1 })
                    #expect(received(server, "/gate/thousand") == 1)
                    server.openGate("thousand")
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses.count == 1000 && statuses.allSatisfy { $0 == 200 })
                #expect(received(server, "/gate/thousand") == 1)
                #expect(client.coalescer.waiting == 0)
            }
        }
    }

    @Test func onlyTheRequestsThatShareAnotherOnesResponseAreMarkedCoalesced() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let requests = (0..<4).map { _ in Task { try await client.response(for: CourierRequest<Data>(path: "/gate/marked")) } }
                #expect(await eventually { client.coalescer.waiting == 4 && server.requestsWaiting(atGate: "marked") == 1 })
                server.openGate("marked")
                var marks: [Bool] = []
                for request in requests { marks.append(try await request.value.isCoalesced) }
                #expect(marks.sorted { !$0 && $1 } == [false, true, true, true])
                let alone = try await client.response(for: CourierRequest<Data>(path: "/get"))
                #expect(!alone.isCoalesced)
            }
        }
    }

    @Test func differentCredentialsOrHeadersNeverShareAFlight() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                func get(_ headers: Headers) -> Task<CourierResponse, any Error> {
                    var request = CourierRequest<Data>(path: "/gate/identities")
                    request.headers = headers
                    return Task { try await client.response(for: request) }
                }
                let tasks = [
                    get(["Authorization": "Bearer alice"]), get(["Authorization": "Bearer bob"]),
                    get(["Authorization": "Bearer alice"]), get(["Authorization": "Bearer alice", "Accept": "text/plain"]),
                ]
                #expect(await eventually { client.coalescer.waiting == 4 && server.requestsWaiting(atGate: "identities") == 3 })
                server.openGate("identities")
                for task in tasks {
                    let response = try await task.value
                    #expect(response.status == 200)
                }
                let sent = server.receivedRequests.filter { $0.path == "/gate/identities" }
                #expect(sent.count == 3)
                #expect(sent.compactMap { $0.header("Authorization") }.sorted() == ["Bearer alice", "Bearer alice", "Bearer bob"])
            }
        }
    }

    /// Starts a request for `path` and waits until it has started the flight: its request is
    /// at the server's gate, and it is the only one waiting. Then starts `joiners` more, and
    /// waits until they have joined.
    private func flight(
        _ client: CourierClient, _ server: TestServer, gate: String, joiners: Int
    ) async -> (starter: Task<CourierResponse, any Error>, joiners: [Task<CourierResponse, any Error>]) {
        let path = "/gate/" + gate
        let starter = Task { try await client.response(for: CourierRequest<Data>(path: path)) }
        #expect(await eventually { client.coalescer.waiting == 1 && server.requestsWaiting(atGate: gate) == 1 })
        let others = (0..<joiners).map { _ in Task { try await client.response(for: CourierRequest<Data>(path: path)) } }
        #expect(await eventually { client.coalescer.waiting == 1 + joiners })
        return (starter, others)
    }

    @Test func cancellingAJoinerLeavesTheOthersTheirResponse() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let (starter, joiners) = await flight(client, server, gate: "joiner-leaves", joiners: 2)
                joiners[0].cancel()
                let error = await courierError { _ = try await joiners[0].value }
                #expect(error?.kind == .cancelled)
                #expect(client.coalescer.waiting == 2)
                server.openGate("joiner-leaves")
                let own = try await starter.value
                #expect(own.status == 200 && !own.isCoalesced)
                let shared = try await joiners[1].value
                #expect(shared.status == 200 && shared.isCoalesced)
                #expect(received(server, "/gate/joiner-leaves") == 1)
            }
        }
    }

    @Test func cancellingTheStarterHandsTheFlightToTheOthers() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let (starter, joiners) = await flight(client, server, gate: "starter-leaves", joiners: 2)
                starter.cancel()
                let error = await courierError { _ = try await starter.value }
                #expect(error?.kind == .cancelled)
                // The starter's exchange ended with it; the flight sends the request once more
                // for the two still waiting, and no more than once.
                #expect(await eventually { received(server, "/gate/starter-leaves") == 2 })
                #expect(client.coalescer.waiting == 2)
                server.openGate("starter-leaves")
                for joiner in joiners {
                    let response = try await joiner.value
                    #expect(response.status == 200 && response.isCoalesced)
                }
                #expect(received(server, "/gate/starter-leaves") == 2)
                #expect(client.coalescer.waiting == 0)
            }
        }
    }

    @Test func aRequestArrivingWhileAFlightIsHandedOverJoinsIt() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let (starter, joiners) = await flight(client, server, gate: "handed-over", joiners: 1)
                starter.cancel()
                _ = await courierError { _ = try await starter.value }
                #expect(await eventually { received(server, "/gate/handed-over") == 2 })
                let late = Task { try await client.response(for: CourierRequest<Data>(path: "/gate/handed-over")) }
                #expect(await eventually { client.coalescer.waiting == 2 })
                // The only joiner left leaves; the late request still wants the flight.
                joiners[0].cancel()
                #expect(await courierError { _ = try await joiners[0].value }?.kind == .cancelled)
                server.openGate("handed-over")
                let answer = try await late.value
                #expect(answer.status == 200 && answer.isCoalesced)
                #expect(received(server, "/gate/handed-over") == 2)
            }
        }
    }

    @Test func cancellingEveryJoinerOfAHandedOverFlightCancelsItsRequest() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let (starter, joiners) = await flight(client, server, gate: "handover-abandoned", joiners: 2)
                starter.cancel()
                _ = await courierError { _ = try await starter.value }
                #expect(await eventually { received(server, "/gate/handover-abandoned") == 2 })
                for joiner in joiners { joiner.cancel() }
                for joiner in joiners {
                    #expect(await courierError { _ = try await joiner.value }?.kind == .cancelled)
                }
                #expect(await eventually { server.openConnections == 0 }, "the handed-over request was not cancelled")
                #expect(client.coalescer.waiting == 0)
            }
        }
    }

    @Test func cancellingEveryWaiterCancelsTheUpstreamRequest() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let tasks = (0..<3).map { _ in Task { try await client.response(for: CourierRequest<Data>(path: "/gate/all-leave")) } }
                #expect(await eventually { client.coalescer.waiting == 3 && server.requestsWaiting(atGate: "all-leave") == 1 })
                for task in tasks { task.cancel() }
                for task in tasks {
                    let error = await courierError { _ = try await task.value }
                    #expect(error?.kind == .cancelled)
                }
                #expect(await eventually { server.openConnections == 0 }, "the shared request was not cancelled")
                #expect(client.coalescer.waiting == 0)
                server.openGate("all-leave")
                let later = try await client.response(for: CourierRequest<Data>(path: "/gate/all-leave"))
                #expect(later.status == 200, "a later request flies again")
            }
        }
    }

    @Test func anErrorReachesEveryWaiter() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let tasks = (0..<5).map { _ in Task { try await client.response(for: CourierRequest<Data>(path: "/gate/fails?drop=1")) } }
                #expect(await eventually { client.coalescer.waiting == 5 && server.requestsWaiting(atGate: "fails") == 1 })
                server.openGate("fails")
                for task in tasks {
                    let error = await courierError { _ = try await task.value }
                    #expect(error != nil && error?.kind != .cancelled, "\(String(describing: error))")
                }
                // One shared exchange: its GET, cut short after its head, was sent once (a
                // response that began is never replayed), never once per waiter.
                #expect(received(server, "/gate/fails") == 1)
            }
        }
    }

    @Test func postsOptedOutRequestsAndClientsWithCoalescingOffSendEveryRequest() async throws {
        try await withServer { server in
            var optedOut = CourierRequest<Data>(path: "/gate/opted-out")
            optedOut.allowsCoalescing = false
            let cases: [(request: CourierRequest<Data>, gate: String, coalesces: Bool)] = [
                (CourierRequest<Data>(method: .post, path: "/gate/posts", body: .text("same")), "posts", true),
                (optedOut, "opted-out", true),
                (CourierRequest<Data>(path: "/gate/client-off"), "client-off", false),
            ]
            for item in cases {
                try await withClient(server, configure: { $0.coalescesRequests = item.coalesces }) { client in
                    let tasks = (0..<3).map { _ in Task { try await client.response(for: item.request) } }
                    #expect(await eventually { server.requestsWaiting(atGate: item.gate) == 3 }, "\(item.gate)")
                    #expect(client.coalescer.waiting == 0)
                    server.openGate(item.gate)
                    for task in tasks {
                        let response = try await task.value
                        #expect(response.status == 200)
                    }
                }
            }
        }
    }
}
