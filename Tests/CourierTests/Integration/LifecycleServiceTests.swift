import Courier
import CourierLifecycle
import CourierQueue
import CourierTesting
import Foundation
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

/// The client and the durable queue as swift-service-lifecycle services.
@Suite("Lifecycle: the client and the queue as services")
struct LifecycleServiceTests {
    /// Waits, a bounded number of times, until `client` has a request in flight.
    private func waitForRequestInFlight(on client: CourierClient) async throws {
        for _ in 0..<2_000 where client.activity.inFlight == 0 {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(client.activity.inFlight > 0)
    }

    @Test func aGracefulShutdownLetsTheRequestInFlightFinishThenClosesTheClient() async throws {
        try await withServer { server in
            let client = CourierClient(configuration: ClientConfiguration(baseURL: server.baseURL))
            try await testGracefulShutdown { trigger in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await ClientService(client: client).run() }
                    // Long enough for the check below to see it in flight while the whole
                    // suite keeps both cores busy (0.3 s has once passed unseen).
                    async let slow = client.send(CourierRequest<CourierResponse>(path: "/delay/2"))
                    try await waitForRequestInFlight(on: client)
                    trigger.triggerGracefulShutdown()
                    #expect(try await slow.status == 200)
                    try await group.waitForAll()
                }
            }
            let error = await courierError { _ = try await client.send(CourierRequest<CourierResponse>(path: "/status/200")) }
            #expect(error?.kind == .clientShutdown)
        }
    }

    @Test func aCancelledServiceClosesTheClient() async throws {
        try await withServer { server in
            let client = CourierClient(configuration: ClientConfiguration(baseURL: server.baseURL))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await ClientService(client: client).run() }
                #expect(try await client.send(CourierRequest<CourierResponse>(path: "/status/200")).status == 200)
                group.cancelAll()
                try await group.waitForAll()
            }
            let error = await courierError { _ = try await client.send(CourierRequest<CourierResponse>(path: "/status/200")) }
            #expect(error?.kind == .clientShutdown)
        }
    }

    @Test func aGracefulShutdownClosesTheQueueAndKeepsItsRecords() async throws {
        try await withQueueFolder { path in
            try await CourierClient.withClient(configuration: ClientConfiguration()) { client in
                let queue = try await client.openQueue(testQueueConfiguration(path: path))
                let note = CourierRequest<Void>(method: .post, path: "http://127.0.0.1:9/notes", body: .text("kept"))
                try await testGracefulShutdown { trigger in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { try await QueueService(queue: queue).run() }
                        _ = try await queue.enqueue(note)
                        trigger.triggerGracefulShutdown()
                        try await group.waitForAll()
                    }
                }
                let error = await courierError { _ = try await queue.enqueue(note) }
                #expect(error?.kind == .clientShutdown)
                var configuration = testQueueConfiguration(path: path)
                configuration.deliversOnOpen = false
                let reopened = try await client.openQueue(configuration)
                let records = try await reopened.records()
                await reopened.close()
                #expect(records.count == 1)
                // Waiting, or caught being sent: either way kept, and sent by the next queue.
                #expect(records.first?.state == .pending || records.first?.state == .inFlight)
                #expect(records.first?.request.body == .data(Data("kept".utf8)))
            }
        }
    }
}
