import Courier
import CourierQueue
import CourierTesting
import Foundation

/// The durable queue's costs: records committed to disk per second, records replayed per
/// second against the server, both against plain requests, and the time from "server back" to
/// the first delivery.
struct QueueBenchmark {
    let server: ServerProcess
    let requests: Int
    let rounds: Int

    func run() async throws {
        var enqueue: [Double] = []
        var replay: [Double] = []
        var plain: [Double] = []
        var told: [Double] = []
        var probed: [Double] = []
        try await CourierClient.withClient { client in
            for round in 0...rounds {
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-queue-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: folder) }
                var configuration = QueueConfiguration(path: folder.appendingPathComponent("queue.sqlite").path)
                configuration.deliversOnOpen = false
                configuration.maximumRecords = requests
                let queue = try await client.openQueue(configuration)
                let written = try await measure(requests: requests) {
                    for index in 0..<requests {
                        _ = try await queue.enqueue(CourierRequest<Void>(method: .post, path: server.url("/idempotent/\(round)-\(index)").absoluteString, body: .text("x")))
                    }
                }
                let delivered = try await measure(requests: requests) {
                    guard try await queue.run() else { throw HarnessError("the queue did not empty") }
                }
                await queue.close()
                let direct = try await measure(requests: requests) {
                    for index in 0..<requests {
                        var request = CourierRequest<Void>(method: .post, path: server.url("/idempotent/plain-\(round)-\(index)").absoluteString, body: .text("x"))
                        request.headers.add(name: "Idempotency-Key", value: UUID().uuidString)
                        try await client.send(request)
                    }
                }
                told.append(try await timeToFirstDelivery(client: client, tellsQueue: true))
                probed.append(try await timeToFirstDelivery(client: client, tellsQueue: false))
                guard round > 0 else { continue }
                enqueue.append(written.requestsPerSecond)
                replay.append(delivered.requestsPerSecond)
                plain.append(direct.requestsPerSecond)
            }
        }
        let plainRate = median(plain)
        print("\nDurable queue, \(requests) POSTs, sequential, medians of \(rounds) rounds:")
        print("  plain requests/s:            \(String(format: "%.0f", plainRate))")
        print("  enqueue records/s committed: \(String(format: "%.0f", median(enqueue))) (\(String(format: "%.2f", median(enqueue) / plainRate))× plain)")
        print("  replay records/s delivered:  \(String(format: "%.0f", median(replay))) (\(String(format: "%.2f", median(replay) / plainRate))× plain)")
        print("  server back → first delivery, networkIsBack(): \(String(format: "%.1f", median(told) * 1000)) ms")
        print("  server back → first delivery, probe only:      \(String(format: "%.1f", median(probed) * 1000)) ms")
    }

    /// Queues a request while an in-process server is down, starts the server on the same
    /// port, and times the first delivery from there.
    private func timeToFirstDelivery(client: CourierClient, tellsQueue: Bool) async throws -> Double {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-back-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let down = try await TestServer.start()
        try await down.shutdown()
        var configuration = QueueConfiguration(path: folder.appendingPathComponent("queue.sqlite").path)
        configuration.retryPolicy = CourierRetryPolicy(maximumAttempts: 100, baseDelay: .milliseconds(100), maximumDelay: .seconds(1))
        let queue = try await client.openQueue(configuration)
        let handle = try await queue.enqueue(CourierRequest<Void>(method: .post, path: down.url("/idempotent/back").absoluteString, body: .text("x")))
        _ = try await handle.firstAttempt()
        let back = try await TestServer.start(port: down.port, ledger: down.ledger)
        let start = ContinuousClock.now
        if tellsQueue { await queue.networkIsBack() }
        _ = try await handle.outcome()
        let elapsed = ContinuousClock.now - start
        await queue.close()
        try await back.shutdown()
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
