import CoreMetrics
import Courier
import CourierQueue
import CourierTesting
import Foundation
import MetricsTestKit
import Testing

/// The durable queue's events and depth, recorded through swift-metrics.
@Suite("Metrics: the durable queue")
struct QueueMetricsTests {
    @Test func eachEventIsCountedByKindAndTheDepthIsRecordedWhenTheQueuePlans() async throws {
        let metrics = TestMetrics()
        try await withMetricsFactory(metrics) {
            try await withServer { server in
                try await withQueueFolder { path in
                    try await withQueue(path: path, configure: { $0.deliversOnOpen = false }) { queue in
                        let post = { (path: String) in CourierRequest<Void>(method: .post, path: server.url(path).absoluteString) }
                        // Waiting when delivery starts, so that the first plan counts it.
                        let waiting = try await queue.enqueue(post("/idempotent/metrics"))
                        #expect(try await queue.run(deadline: .seconds(60)))
                        let delivered = try await queue.record(id: waiting.id)
                        let failed = try await queue.enqueue(post("/status/404")).outcome()
                        #expect(delivered?.state == .delivered && failed.state == .failed)
                    }
                }
            }
        }
        func count(_ event: String) -> Int64 {
            metrics.counterTotal(label: "courier.queue.events", dimensions: [("courier.queue.event", event)])
        }
        #expect(count("queued") == 2)
        #expect(count("attempt") == 2)
        #expect(count("delivered") == 1)
        #expect(count("failed") == 1)
        #expect(count("waiting") == 0 && count("expired") == 0)
        let depth = try metrics.expectGauge("courier.queue.depth")
        #expect(depth.values.contains(1))
        #expect(depth.values.allSatisfy { (0...2).contains($0) })
        // Recorded with the depth: 0 once nothing waits, never negative, and small here.
        let age = try metrics.expectGauge("courier.queue.oldest_age")
        #expect(age.values.count == depth.values.count)
        #expect(age.values.allSatisfy { $0 >= 0 && $0 < 600 })
        #expect(zip(depth.values, age.values).allSatisfy { depth, age in depth > 0 || age == 0 })
    }

}
