import Courier
import CourierTesting
import Foundation
import Testing

/// A value outside its range is refused before anything is sent, with an error that names it;
/// none traps, and none is blamed on the network.
@Suite("Configuration values outside their ranges")
struct AbsurdConfigurationTests {
    static let changes: [(name: String, change: @Sendable (inout ClientConfiguration) -> Void)] = [
        ("timeouts.connect", { $0.timeouts.connect = .seconds(-1) }),
        ("timeouts.connect", { $0.timeouts.connect = .zero }),
        ("timeouts.connect", { $0.timeouts.connect = .seconds(Int64.max) }),
        ("timeouts.read", { $0.timeouts.read = .seconds(-1) }),
        ("timeouts.read", { $0.timeouts.read = .zero }),
        ("timeouts.read", { $0.timeouts.read = .seconds(Int64.max) }),
        ("timeouts.total", { $0.timeouts.total = .seconds(-1) }),
        ("timeouts.total", { $0.timeouts.total = .zero }),
        ("timeouts.total", { $0.timeouts.total = .seconds(Int64.max) }),
        ("limits.maximumBodySize", { $0.limits.maximumBodySize = -1 }),
        ("limits.maximumConcurrentRequests", { $0.limits.maximumConcurrentRequests = 0 }),
        ("limits.maximumConcurrentRequests", { $0.limits.maximumConcurrentRequests = -1 }),
        ("limits.maximumConcurrentRequestsPerHost", { $0.limits.maximumConcurrentRequestsPerHost = 0 }),
        ("limits.maximumConnectionsPerHost", { $0.limits.maximumConnectionsPerHost = 0 }),
        ("limits.maximumConnectionsPerHost", { $0.limits.maximumConnectionsPerHost = -1 }),
        ("redirectPolicy.maximumRedirects", { $0.redirectPolicy.maximumRedirects = -1 }),
    ]

    @Test(.timeLimit(.minutes(1)), arguments: 0..<changes.count)
    func outOfRangeIsRefusedBeforeSending(index: Int) async throws {
        let (name, change) = Self.changes[index]
        try await withServer { server in
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            change(&configuration)
            let error = await courierError {
                try await CourierClient.withClient(configuration: configuration) { client in
                    _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/get"))
                }
            }
            #expect(error?.kind == .invalidConfiguration)
            #expect(error?.message.contains(name) == true, "\(String(describing: error))")
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test("the largest values in range work, and huge retry counts do not overflow")
    func largestValuesWork() async throws {
        try await withServer { server in
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configuration.timeouts = Timeouts(connect: .seconds(31_536_000), read: .seconds(31_536_000), total: .seconds(31_536_000))
            configuration.limits.maximumBodySize = .max
            configuration.limits.maximumConcurrentRequests = .max
            configuration.limits.maximumConnectionsPerHost = .max
            configuration.retryPolicy = .retries(.max)
            let response = try await CourierClient.withClient(configuration: configuration) { client in
                try await client.response(for: CourierRequest<CourierResponse>(path: "/get"))
            }
            #expect(response.status == 200)
        }
    }

    @Test("a request's own timeout or body limit outside its range is refused before sending", arguments: [-1, 0])
    func requestValues(seconds: Int64) async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var timed = CourierRequest<CourierResponse>(path: "/get")
                timed.timeout = .seconds(seconds)
                let error = await courierError { _ = try await client.response(for: timed) }
                #expect(error?.kind == .invalidConfiguration)
                var limited = CourierRequest<CourierResponse>(path: "/get")
                limited.maximumBodySize = Int(seconds) - 1
                let limitError = await courierError { _ = try await client.response(for: limited) }
                #expect(limitError?.kind == .invalidConfiguration)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }
}
