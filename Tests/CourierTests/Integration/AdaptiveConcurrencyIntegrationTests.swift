import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Adaptive limits against the in-process server")
struct AdaptiveConcurrencyIntegrationTests {
    /// Sends `count` requests for `url` at once and returns the statuses the server answered.
    static func burst(_ client: CourierClient, _ url: String, count: Int) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask {
                    do {
                        return try await client.response(for: CourierRequest<Data>(path: "\(url)?i=\(index)")).status
                    } catch let error as CourierError where error.kind == .validationFailed {
                        return error.response?.status ?? 0
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func anOverloadedServerBringsTheLimitDownToTheMinimum() async throws {
        try await withServer { server in
            let adaptive = AdaptiveConcurrency(initialLimit: 4, minimumLimit: 1)
            try await SchedulerIntegrationTests.withScheduledClient(perHost: 4, adaptive: adaptive) { client, transport in
                let url = server.url("/status/503").absoluteString
                // Three 503s take the limit from 4 to 1; the rest keep it there.
                let first = try await Self.burst(client, url, count: 12)
                #expect(first == Array(repeating: 503, count: 12))
                #expect(transport.most <= 4)
                transport.resetMost()
                let second = try await Self.burst(client, url, count: 20)
                #expect(second == Array(repeating: 503, count: 20))
                #expect(transport.most == 1)
                #expect(server.receivedRequests.count == 32)
            }
        }
    }

    @Test func steadySuccessesGrowTheLimitUpToTheMaximumAndNoFurther() async throws {
        try await withServer { server in
            // A generous latency tolerance: the shared machine's latency is noisy.
            let adaptive = AdaptiveConcurrency(initialLimit: 1, latencyTolerance: 4)
            try await SchedulerIntegrationTests.withScheduledClient(perHost: 4, adaptive: adaptive) { client, transport in
                let statuses = try await Self.burst(client, server.url("/delay/0.05").absoluteString, count: 40)
                #expect(statuses == Array(repeating: 200, count: 40))
                #expect(transport.most == 4)
            }
        }
    }

    @Test func withoutAdaptiveModeA503DoesNotLowerTheLimit() async throws {
        try await withServer { server in
            try await SchedulerIntegrationTests.withScheduledClient(perHost: 3) { client, transport in
                _ = try await Self.burst(client, server.url("/status/503").absoluteString, count: 6)
                transport.resetMost()
                let statuses = try await Self.burst(client, server.url("/delay/0.1").absoluteString, count: 6)
                #expect(statuses == Array(repeating: 200, count: 6))
                #expect(transport.most == 3)
            }
        }
    }
}
