import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The real transport, counting how many exchanges are in flight at once.
final class CountingTransport: Transport {
    let inner = CourierAsyncHTTPClientTransport()
    private let counts = NIOLockedValueBox((now: 0, most: 0))

    var most: Int { counts.withLockedValue { $0.most } }

    /// Starts counting the most exchanges in flight at once afresh.
    func resetMost() { counts.withLockedValue { $0.most = $0.now } }

    func send(_ request: CourierHTTPRequest, deadline: ContinuousClock.Instant?) async throws -> CourierResponse {
        counts.withLockedValue {
            $0.now += 1; $0.most = max($0.most, $0.now)
        }
        defer { counts.withLockedValue { $0.now -= 1 } }
        return try await inner.send(request, deadline: deadline)
    }

    func shutdown() async throws { try await inner.shutdown() }
}

/// How a request reaches the network once it has its slot.
enum SchedulingRoad: String, CaseIterable, CustomTestStringConvertible {
    /// A transport of the caller's: the request waits for its slot, then calls it.
    case customTransport
    /// The client's own: the transport is handed the start of the exchange, which the release
    /// of a slot runs.
    case ownTransport

    var testDescription: String { rawValue }
}

@Suite("Scheduler against the in-process server")
struct SchedulerIntegrationTests {
    /// A client with these limits on `road`; on the client's own transport, no transport counts
    /// exchanges (count them at the server, with `/polite`).
    static func withScheduledClient<T>(
        on road: SchedulingRoad, global: Int = 64, perHost: Int, adaptive: AdaptiveConcurrency? = nil,
        _ body: (CourierClient) async throws -> T
    ) async throws -> T {
        switch road {
        case .customTransport:
            return try await withScheduledClient(global: global, perHost: perHost, adaptive: adaptive) { client, _ in try await body(client) }
        case .ownTransport:
            var configuration = ClientConfiguration()
            configuration.limits.maximumConcurrentRequests = global
            configuration.limits.maximumConcurrentRequestsPerHost = perHost
            configuration.limits.adaptiveConcurrency = adaptive
            return try await CourierClient.withClient(configuration: configuration, body)
        }
    }

    static func withScheduledClient<T>(
        global: Int = 64, perHost: Int, adaptive: AdaptiveConcurrency? = nil,
        _ body: (CourierClient, CountingTransport) async throws -> T
    ) async throws -> T {
        var configuration = ClientConfiguration()
        configuration.limits.maximumConcurrentRequests = global
        configuration.limits.maximumConcurrentRequestsPerHost = perHost
        configuration.limits.adaptiveConcurrency = adaptive
        let transport = CountingTransport()
        let client = CourierClient(configuration: configuration, transport: transport, ownsTransport: true)
        do {
            let result = try await body(client, transport)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    @Test func perHostAndGlobalLimitsAreNeverExceeded() async throws {
        try await withTwoServers { a, b in
            try await Self.withScheduledClient(global: 4, perHost: 3) { client, transport in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<16 {
                        let server = index.isMultiple(of: 2) ? a : b
                        group.addTask { _ = try await client.send(CourierRequest<Data>(path: server.url("/delay/0.1?i=\(index)").absoluteString)) }
                    }
                    try await group.waitForAll()
                }
                #expect(transport.most == 4)
                #expect(a.receivedRequests.count == 8 && b.receivedRequests.count == 8)
            }
            try await Self.withScheduledClient(perHost: 3) { client, transport in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<12 {
                        group.addTask { _ = try await client.send(CourierRequest<Data>(path: a.url("/delay/0.1?j=\(index)").absoluteString)) }
                    }
                    try await group.waitForAll()
                }
                #expect(transport.most == 3)
            }
        }
    }

    @Test(arguments: SchedulingRoad.allCases) func higherPriorityStartsFirstAndPriorityCanChangeWhileWaiting(road: SchedulingRoad) async throws {
        try await withServer { server in
            try await Self.withScheduledClient(on: road, perHost: 1) { client in
                // The blocker holds the only slot until the test cancels it, however slow the
                // machine is.
                let blocker = client.start(CourierRequest<Data>(path: server.url("/gate/held").absoluteString))
                #expect(await eventually { client.activity.inFlight == 1 })
                var handles: [RequestHandle<Data>] = []
                for (name, priority) in [("low", RequestPriority.low), ("default", .default), ("high", .high), ("raised", .low)] {
                    var request = CourierRequest<Data>(path: server.url("/anything/\(name)").absoluteString)
                    request.priority = priority
                    handles.append(client.start(request))
                    #expect(await eventually { client.activity.waiting == handles.count })
                }
                handles[3].changePriority(to: .high)
                blocker.cancel()
                for handle in handles { _ = try await handle.value }
                // The cancelled blocker may or may not have reached the server, at any point.
                let order = server.receivedRequests.map(\.path).filter { $0.hasPrefix("/anything/") }
                #expect(order == ["/anything/high", "/anything/raised", "/anything/default", "/anything/low"])
            }
        }
    }

    @Test(arguments: SchedulingRoad.allCases) func cancellingAWaitingRequestRemovesItAtOnce(road: SchedulingRoad) async throws {
        try await withServer { server in
            try await Self.withScheduledClient(on: road, perHost: 1) { client in
                let blocker = client.start(CourierRequest<Data>(path: server.url("/gate/held").absoluteString))
                #expect(await eventually { client.activity.inFlight == 1 })
                let waiting = client.start(CourierRequest<Data>(path: server.url("/anything/never").absoluteString))
                #expect(await eventually { client.activity.waiting == 1 })
                waiting.cancel()
                let error = await courierError { _ = try await waiting.value }
                #expect(error?.kind == .cancelled)
                #expect(client.activity == Activity(waiting: 0, inFlight: 1), "the cancelled request left while the blocker ran")
                blocker.cancel()
                #expect(await eventually { client.activity == Activity(waiting: 0, inFlight: 0) })
                #expect(!server.receivedRequests.contains { $0.path == "/anything/never" })
            }
        }
    }

    @Test func theDefaultConfigurationUsesEveryConnectionItKeepsPerHost() async throws {
        let defaults = ClientConfiguration()
        #expect(defaults.limits.maximumConcurrentRequestsPerHost == defaults.limits.maximumConnectionsPerHost)
        try await withServer { server in
            let client = CourierClient(configuration: defaults)
            let gate = "defaults-\(UUID().uuidString)"
            let extra = 3
            let total = defaults.limits.maximumConcurrentRequestsPerHost + extra
            let handles = (0..<total).map { index in
                client.start(CourierRequest<Data>(path: server.url("/gate/\(gate)?i=\(index)").absoluteString))
            }
            // As many requests as connections reach the server together; the rest wait in the
            // client, not inside the transport.
            let reached = await eventually { server.requestsWaiting(atGate: gate) == defaults.limits.maximumConnectionsPerHost }
            #expect(reached)
            #expect(await eventually { client.activity == Activity(waiting: extra, inFlight: total - extra) })
            server.openGate(gate)
            for handle in handles { _ = try await handle.value }
            #expect(server.receivedRequests.count == total)
            try await client.shutdown()
        }
    }

    @Test(arguments: SchedulingRoad.allCases) func activityUpdatesFollowTheRequests(road: SchedulingRoad) async throws {
        try await withServer { server in
            try await Self.withScheduledClient(on: road, perHost: 1) { client in
                let updates = client.activityUpdates()
                let collector = Task {
                    var seen: [Activity] = []
                    for await activity in updates {
                        seen.append(activity)
                        if seen.count > 1 && !activity.isActive { break }
                    }
                    return seen
                }
                async let first: Data = client.send(CourierRequest<Data>(path: server.url("/delay/0.2").absoluteString))
                async let second: Data = client.send(CourierRequest<Data>(path: server.url("/anything/2").absoluteString))
                _ = try await (first, second)
                let seen = await collector.value
                #expect(seen.first == Activity(waiting: 0, inFlight: 0))
                #expect(seen.contains(Activity(waiting: 1, inFlight: 1)))
                #expect(seen.last == Activity(waiting: 0, inFlight: 0))
            }
        }
    }
}
