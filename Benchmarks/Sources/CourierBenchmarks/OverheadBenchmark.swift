import Courier
import Foundation

/// Courier's own cost per request: the whole pipeline (URL building, headers, lifecycle,
/// redirects, validation, decoding) over a transport that answers from memory.
struct OverheadBenchmark {
    struct MemoryTransport: Transport {
        let body = Data(repeating: 0x2A, count: 100)
        func send(_ request: CourierHTTPRequest, deadline: ContinuousClock.Instant?) async throws -> CourierResponse {
            CourierResponse(status: 200, reasonPhrase: "OK", headers: ["Content-Length": "100"], body: body, url: request.url, request: request)
        }
        func shutdown() async throws {}
    }

    let requests: Int
    let rounds: Int

    func run() async throws {
        print("\nCourier's own work per request (in-memory transport, \(requests) requests, median of \(rounds)):")
        // The fourth contender is the default with a MetricsObserver and no metrics backend
        // bootstrapped: what recording costs a program that never reads the metrics. The last
        // sends each request to a URL of its own, as the small-GET run's default-configuration
        // contender does: what building a URL the client has not seen costs.
        for (coalesces, tasks, metrics, fresh) in [
            (true, 1, false, false), (false, 1, false, false), (false, 16, false, false), (true, 1, true, false), (true, 1, false, true),
        ] {
            var configuration = ClientConfiguration(baseURL: URL(string: "http://127.0.0.1:8080")!)
            configuration.coalescesRequests = coalesces
            configuration.limits.maximumConcurrentRequestsPerHost = tasks
            if metrics { configuration.observers.append(MetricsObserver()) }
            let client = CourierClient(configuration: configuration, transport: MemoryTransport())
            let request = CourierRequest<Data>(path: "/bytes/100")
            var samples: [Sample] = []
            for round in 0...rounds {
                let sample = try await measure(requests: requests) {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for _ in 0..<tasks {
                            group.addTask {
                                for index in 0..<requests / tasks {
                                    _ = try await client.send(fresh ? CourierRequest<Data>(path: "/bytes/100?r=\(index)") : request)
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                }
                if round > 0 { samples.append(sample) }
            }
            try await client.shutdown()
            let cost = String(format: "%.2f", median(samples.map(\.cpuMicrosecondsPerRequest)))
            let observed = (metrics ? ", MetricsObserver (no backend)" : "") + (fresh ? ", a new URL each" : "")
            print("  coalescing \(coalesces ? "on " : "off"), \(tasks) task\(tasks == 1 ? "" : "s") at once\(observed): CPU µs/request \(cost)")
        }
    }
}
