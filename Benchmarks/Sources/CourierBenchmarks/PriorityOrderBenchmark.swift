import Courier
import CourierTesting
import Foundation

/// Requests of mixed priority queued behind one slot: in what order does the server see them?
/// Prints, per priority, the span of arrival positions, and how many pairs arrived out of
/// priority order (a lower priority before a higher one that was already waiting).
struct PriorityOrderBenchmark {
    let count: Int

    func run() async throws {
        var generator = SystemRandomNumberGenerator()
        let priorities = (0..<count).map { _ in RequestPriority.allCases.randomElement(using: &generator)! }
        try await TestServer.withServer { server in
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configuration.limits.maximumConcurrentRequestsPerHost = 1
            try await CourierClient.withClient(configuration: configuration) { client in
                let blocker = client.start(CourierRequest<Data>(path: "/delay/0.5"))
                for _ in 0..<500 where client.activity.inFlight == 0 { try await Task.sleep(for: .milliseconds(10)) }
                let handles = priorities.indices.map { index in
                    var request = CourierRequest<Data>(path: "/anything/\(index)")
                    request.priority = priorities[index]
                    return client.start(request)
                }
                for _ in 0..<1_000 where client.activity.waiting < count { try await Task.sleep(for: .milliseconds(10)) }
                let queued = client.activity.waiting
                _ = try await blocker.value
                for handle in handles { _ = try await handle.value }
                let arrivals = server.receivedRequests.compactMap { Int($0.path.split(separator: "/").last ?? "") }
                report(arrivals.map { priorities[$0] }, queued: queued)
            }
        }
    }

    private func report(_ order: [RequestPriority], queued: Int) {
        print("\n\(count) requests of mixed priority behind one slot (\(queued) waiting at once before the slot freed):")
        for priority in RequestPriority.allCases.reversed() {
            let positions = order.indices.filter { order[$0] == priority }
            guard let first = positions.first, let last = positions.last else { continue }
            print("  \(String(describing: priority).padding(toLength: 8, withPad: " ", startingAt: 0)) \(positions.count) requests, arrived at positions \(first + 1)–\(last + 1)")
        }
        var seen: [RequestPriority: Int] = [:]
        var inversions = 0
        for priority in order {
            inversions += seen.filter { $0.key < priority }.values.reduce(0, +)
            seen[priority, default: 0] += 1
        }
        print("  pairs out of priority order: \(inversions)")
    }
}
