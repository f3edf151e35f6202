import Courier
import CourierTesting
import Foundation
import NIOPosix
import Testing

/// The client's own transport is handed each exchange's start and gives the slot back the
/// moment a collected response is complete, on the event loop: the limits, the adaptive
/// samples and the slots must come out as they do when a request waits for its slot first.
@Suite("Slots on the client's own transport")
struct AdmissionIntegrationTests {
    /// Sends `count` requests at once to `/polite?QUERY&i=N` and returns the statuses.
    static func burst(_ client: CourierClient, _ server: TestServer, _ query: String, count: Int) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask {
                    let path = server.url("/polite?\(query)&i=\(index)").absoluteString
                    do {
                        return try await client.response(for: CourierRequest<Data>(path: path)).status
                    } catch let error as CourierError where error.kind == .validationFailed {
                        return error.response?.status ?? 0
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func theServerNeverSeesMoreThanThePerHostOrTheGlobalLimit() async throws {
        try await withServer { server in
            try await SchedulerIntegrationTests.withScheduledClient(on: .ownTransport, perHost: 3) { client in
                let statuses = try await Self.burst(client, server, "key=host&delay=0.1", count: 12)
                #expect(statuses == Array(repeating: 200, count: 12))
                #expect(server.traffic.summary(for: "host").mostAtOnce == 3)
                #expect(client.activity == Activity(waiting: 0, inFlight: 0))
            }
            try await SchedulerIntegrationTests.withScheduledClient(on: .ownTransport, global: 2, perHost: 8) { client in
                let statuses = try await Self.burst(client, server, "key=global&delay=0.1", count: 8)
                #expect(statuses == Array(repeating: 200, count: 8))
                #expect(server.traffic.summary(for: "global").mostAtOnce == 2)
            }
        }
    }

    @Test func aWaitingRequestTakesTheConnectionTheRequestBeforeItFreed() async throws {
        try await withServer { server in
            try await SchedulerIntegrationTests.withScheduledClient(on: .ownTransport, perHost: 1) { client in
                let statuses = try await Self.burst(client, server, "key=one&delay=0", count: 6)
                #expect(statuses == Array(repeating: 200, count: 6))
                // Each waiting request was started once the connection of the one before it was
                // idle again: one connection served them all, though eight were allowed.
                #expect(server.acceptedConnections == 1)
                #expect(server.traffic.summary(for: "one").mostAtOnce == 1)
            }
        }
    }

    /// The exchange a freed slot starts on the loop still belongs to its task: cancelling the
    /// task ends it, closes its connection and frees the slot.
    @Test func cancellingARequestItsFreedSlotStartedEndsIt() async throws {
        try await withServer { server in
            try await SchedulerIntegrationTests.withScheduledClient(on: .ownTransport, perHost: 1) { client in
                let first = Task { try await client.send(CourierRequest<Data>(path: server.url("/gate/first").absoluteString)) }
                #expect(await eventually { server.requestsWaiting(atGate: "first") == 1 })
                let second = Task { try await client.send(CourierRequest<Data>(path: server.url("/gate/second").absoluteString)) }
                #expect(await eventually { client.activity == Activity(waiting: 1, inFlight: 1) })
                server.openGate("first")
                let firstBody = try await first.value
                #expect(!firstBody.isEmpty)
                // Started by the slot the first freed, on the connection it freed.
                #expect(await eventually { server.requestsWaiting(atGate: "second") == 1 })
                #expect(server.acceptedConnections == 1)
                second.cancel()
                let result = await second.result
                guard case .failure(let error as CourierError) = result else {
                    Issue.record("expected a cancellation error, got \(result)")
                    return
                }
                #expect(error.kind == .cancelled)
                #expect(await eventually(attempts: 1000) { server.openConnections == 0 })
                #expect(client.activity == Activity(waiting: 0, inFlight: 0))
                let after = try await client.send(CourierRequest<Data>(path: server.url("/get").absoluteString))
                #expect(!after.isEmpty)
            }
        }
    }

    /// A request whose total timeout ends while it waits for a slot fails as a timeout, unsent,
    /// and leaves the line; the slot it waited for still goes to whoever comes next.
    @Test func aRequestThatWaitsPastItsTotalTimeoutFailsUnsent() async throws {
        try await withServer { server in
            try await SchedulerIntegrationTests.withScheduledClient(on: .ownTransport, perHost: 1) { client in
                let first = Task { try await client.send(CourierRequest<Data>(path: server.url("/gate/long").absoluteString)) }
                #expect(await eventually { server.requestsWaiting(atGate: "long") == 1 })
                var impatient = CourierRequest<Data>(path: server.url("/get?impatient=1").absoluteString)
                impatient.timeout = .milliseconds(200)
                let error = await courierError { _ = try await client.send(impatient) }
                #expect(error?.kind == .timeout)
                #expect(error?.requestMayHaveBeenSent == false)
                #expect(client.activity == Activity(waiting: 0, inFlight: 1))
                server.openGate("long")
                let firstBody = try await first.value
                #expect(!firstBody.isEmpty)
                let after = try await client.send(CourierRequest<Data>(path: server.url("/get?after=1").absoluteString))
                #expect(!after.isEmpty)
                #expect(!server.receivedRequests.contains { $0.uri.contains("impatient") })
                #expect(client.activity == Activity(waiting: 0, inFlight: 0))
            }
        }
    }

    /// A slot freed by an exchange whose connection closed comes with no idle connection: the
    /// request granted it opens one.
    @Test func aRequestWhoseSlotCameWithoutAConnectionOpensOne() async throws {
        try await withServer { server in
            try await SchedulerIntegrationTests.withScheduledClient(on: .ownTransport, perHost: 1) { client in
                var closing = CourierRequest<Data>(path: server.url("/gate/closing").absoluteString)
                closing.headers.add(name: "Connection", value: "close")
                let first = Task { try await client.send(closing) }
                #expect(await eventually { server.requestsWaiting(atGate: "closing") == 1 })
                let second = Task { try await client.send(CourierRequest<Data>(path: server.url("/get?second=1").absoluteString)) }
                #expect(await eventually { client.activity == Activity(waiting: 1, inFlight: 1) })
                server.openGate("closing")
                let (firstBody, secondBody) = (try await first.value, try await second.value)
                #expect(!firstBody.isEmpty && !secondBody.isEmpty)
                #expect(server.acceptedConnections == 2)
                #expect(client.activity == Activity(waiting: 0, inFlight: 0))
            }
        }
    }

    @Test func callersOnTheEventLoopsWaitForTheirSlotsAndResumeOnTheirLoops() async throws {
        try await withServer { server in
            try await SchedulerIntegrationTests.withScheduledClient(on: .ownTransport, perHost: 2) { client in
                let resumedOnLoop = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<8 {
                        group.addTask(executorPreference: client.makeTaskExecutor()) {
                            let path = server.url("/polite?key=loops&delay=0.05&i=\(index)").absoluteString
                            _ = try await client.send(CourierRequest<Data>(path: path))
                            return MultiThreadedEventLoopGroup.currentEventLoop != nil
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(resumedOnLoop == Array(repeating: true, count: 8))
                #expect(server.traffic.summary(for: "loops").mostAtOnce == 2)
                #expect(client.activity == Activity(waiting: 0, inFlight: 0))
            }
        }
    }

    @Test func adaptiveSamplesAreTakenWhereTheSlotIsGivenBack() async throws {
        try await withServer { server in
            let adaptive = AdaptiveConcurrency(initialLimit: 4, minimumLimit: 1)
            try await SchedulerIntegrationTests.withScheduledClient(on: .ownTransport, perHost: 4, adaptive: adaptive) { client in
                // Three 503s take the limit from 4 to 1; the rest keep it there.
                let first = try await Self.burst(client, server, "key=first&status=503&delay=0.02", count: 12)
                #expect(first == Array(repeating: 503, count: 12))
                #expect(server.traffic.summary(for: "first").mostAtOnce <= 4)
                let second = try await Self.burst(client, server, "key=second&status=503&delay=0.02", count: 12)
                #expect(second == Array(repeating: 503, count: 12))
                #expect(server.traffic.summary(for: "second").mostAtOnce == 1)
            }
        }
    }

    @Test func exchangesThatFailGiveTheirSlotsBack() async throws {
        let refusing = try ReservedPort()
        try await withServer { server in
            var configuration = ClientConfiguration()
            configuration.limits.maximumConcurrentRequestsPerHost = 1
            configuration.retryPolicy = .none
            try await CourierClient.withClient(configuration: configuration) { client in
                let errors = try await withThrowingTaskGroup(of: CourierError?.self) { group in
                    for index in 0..<4 {
                        group.addTask {
                            await courierError { _ = try await client.send(CourierRequest<Data>(path: refusing.url("/?i=\(index)").absoluteString)) }
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(errors.map { $0?.kind } == Array(repeating: .connectionFailed, count: 4), "\(errors.map { $0?.message ?? "no error" })")
                #expect(client.activity == Activity(waiting: 0, inFlight: 0))
                // A response that breaks off after its head fails once the exchange has started.
                server.openGate("open")
                let broken = await courierError { _ = try await client.send(CourierRequest<Data>(path: server.url("/gate/open?drop=1").absoluteString)) }
                #expect(broken?.kind == .connectionFailed)
                let body = try await client.send(CourierRequest<Data>(path: server.url("/get").absoluteString))
                #expect(!body.isEmpty)
                #expect(client.activity == Activity(waiting: 0, inFlight: 0))
            }
        }
    }

    @Test func aStreamedResponseHoldsItsSlotUntilItsBodyIsRead() async throws {
        try await withServer { server in
            try await SchedulerIntegrationTests.withScheduledClient(on: .ownTransport, perHost: 1) { client in
                let reading = Task {
                    try await client.stream(CourierRequest<Data>(path: server.url("/gate/streamed").absoluteString)) { response in
                        try await response.body.collect(upTo: 1 << 20).count
                    }
                }
                #expect(await eventually { server.requestsWaiting(atGate: "streamed") == 1 })
                let waiting = Task {
                    try await client.stream(CourierRequest<Data>(path: server.url("/get?after=1").absoluteString)) { response in
                        try await response.body.collect(upTo: 1 << 20).count
                    }
                }
                #expect(await eventually { client.activity == Activity(waiting: 1, inFlight: 1) })
                #expect(!server.receivedRequests.contains { $0.uri.contains("after") })
                server.openGate("streamed")
                let (first, second) = (try await reading.value, try await waiting.value)
                #expect(first > 0 && second > 0)
                #expect(client.activity == Activity(waiting: 0, inFlight: 0))
            }
        }
    }
}
