import CoreMetrics
import CourierTesting
import Foundation
import MetricsTestKit
import Testing

@testable import Courier

/// The metrics a ``MetricsObserver`` records for real exchanges with the test server.
@Suite("Metrics: requests as swift-metrics metrics")
struct MetricsObserverTests {
    /// Runs `body` with a client on a test server whose observer records into a fresh store.
    private func withMetrics(
        configure: @escaping (inout ClientConfiguration) -> Void = { _ in },
        _ body: (TestServer, CourierClient, TestMetrics) async throws -> Void
    ) async throws {
        let metrics = TestMetrics()
        try await withServer { server in
            try await withClient(server) { configuration in
                configuration.observers.append(MetricsObserver(factory: metrics))
                configure(&configuration)
            } _: { client in
                try await body(server, client, metrics)
            }
        }
    }

    /// The value of dimension `name` in `dimensions`.
    private func value(_ name: String, in dimensions: [(String, String)]) -> String? {
        dimensions.first { $0.0 == name }?.1
    }

    private func send(_ client: CourierClient, _ path: String, method: CourierHTTPMethod = .get) async throws -> CourierResponse {
        var request = CourierRequest<CourierResponse>(method: method, path: path)
        request.validators = []
        return try await client.send(request)
    }

    @Test func aRequestIsTimedWithItsMethodServerStatusAndSource() async throws {
        try await withMetrics { server, client, metrics in
            _ = try await send(client, "/bytes/300")
            let timer = try #require(metrics.timers(label: MetricsObserver.Name.requestDuration).first)
            let dimensions = timer.dimensions
            #expect(value("http.request.method", in: dimensions) == "GET")
            #expect(value("server.address", in: dimensions) == "127.0.0.1")
            #expect(value("server.port", in: dimensions) == String(server.port))
            #expect(value("url.scheme", in: dimensions) == "http")
            #expect(value("http.response.status_code", in: dimensions) == "200")
            #expect(value("courier.response.status_class", in: dimensions) == "2xx")
            #expect(value("courier.response.source", in: dimensions) == "network")
            #expect(value("error.type", in: dimensions) == nil)
            #expect(timer.values.count == 1 && timer.values[0] > 0)
            let size = try #require(metrics.recorders(label: MetricsObserver.Name.responseBodySize).first)
            #expect(size.values == [300])
            // Started and finished: no request is active.
            let active = try #require(metrics.meters(label: MetricsObserver.Name.activeRequests).first)
            #expect(active.values == [1, 0])
        }
    }

    @Test func cacheHitsShowAsTheirSource() async throws {
        try await withMetrics { configuration in
            configuration.cache = CacheConfiguration(storage: MemoryCacheStorage())
        } _: { _, client, metrics in
            let path = cacheable([("cc", "max-age=600")])
            _ = try await send(client, path)
            _ = try await send(client, path)
            let sources = metrics.timers(label: MetricsObserver.Name.requestDuration).flatMap { timer in
                Array(repeating: value("courier.response.source", in: timer.dimensions) ?? "", count: timer.values.count)
            }
            #expect(sources.sorted() == ["cache", "network"])
        }
    }

    @Test func aSharedResponseShowsAsCoalesced() async throws {
        try await withMetrics { server, client, metrics in
            let requests = (0..<3).map { _ in Task { try await send(client, "/gate/metrics-coalesced") } }
            // Every request has joined the flight before the server answers.
            #expect(await eventually { client.coalescer.waiting == 3 && server.requestsWaiting(atGate: "metrics-coalesced") == 1 })
            server.openGate("metrics-coalesced")
            for request in requests { _ = try await request.value }
            let sources = metrics.timers(label: MetricsObserver.Name.requestDuration).flatMap { timer in
                Array(repeating: value("courier.response.source", in: timer.dimensions) ?? "", count: timer.values.count)
            }
            #expect(sources.sorted() == ["coalesced", "coalesced", "network"])
            #expect(server.receivedRequests.filter { $0.path == "/gate/metrics-coalesced" }.count == 1)
        }
    }

    @Test func anErrorStatusAndAFailureHaveAnErrorType() async throws {
        try await withMetrics { _, client, metrics in
            _ = try await send(client, "/status/404")
            _ = await courierError { _ = try await send(client, "http://127.0.0.1:9/nowhere") }
            let types = metrics.timers(label: MetricsObserver.Name.requestDuration).compactMap { value("error.type", in: $0.dimensions) }
            #expect(types.sorted() == ["404", "connectionFailed"])
            let failed = try #require(
                metrics.timers(label: MetricsObserver.Name.requestDuration).first { value("error.type", in: $0.dimensions) == "connectionFailed" })
            #expect(value("http.response.status_code", in: failed.dimensions) == nil)
            #expect(value("server.port", in: failed.dimensions) == "9")
        }
    }

    @Test func retriesAndRedirectsAreCounted() async throws {
        try await withMetrics { configuration in
            configuration.retryPolicy = CourierRetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1))
        } _: { _, client, metrics in
            _ = try await send(client, "/status/503")
            _ = try await send(client, "/redirect/2")
            #expect(metrics.counterTotal(label: MetricsObserver.Name.retries) == 2)
            #expect(metrics.counterTotal(label: MetricsObserver.Name.redirects) == 2)
        }
    }

    @Test func withoutAFactoryItRecordsIntoTheOneSwiftMetricsGivesAtEachEvent() async throws {
        let metrics = TestMetrics()
        try await withServer { server in
            try await withClient(server) {
                $0.observers.append(MetricsObserver())
            } _: { client in
                // No backend bootstrapped: the no-op factory, nothing recorded.
                _ = try await send(client, "/status/201")
                try await withMetricsFactory(metrics) {
                    _ = try await send(client, "/status/204")
                }
            }
        }
        let statuses = metrics.timers(label: MetricsObserver.Name.requestDuration).compactMap {
            value("http.response.status_code", in: $0.dimensions)
        }
        #expect(statuses == ["204"])
        #expect(try metrics.expectMeter(MetricsObserver.Name.activeRequests, metrics.meters.first?.dimensions ?? []).values == [1, 0])
    }

    @Test func aClientCreatedWithABackendRecordsByItselfOnce() async throws {
        let metrics = TestMetrics()
        try await withServer { server in
            try await withMetricsFactory(metrics) {
                // No observer configured: the client adds one because a backend is set.
                try await withClient(server) { client in _ = try await send(client, "/status/200") }
                // One added by hand: not doubled.
                try await withClient(server) {
                    $0.observers.append(MetricsObserver())
                } _: { client in
                    _ = try await send(client, "/status/202")
                }
            }
            // Created with no backend: nothing added, nothing recorded.
            try await withClient(server) { client in _ = try await send(client, "/status/203") }
        }
        let timers = metrics.timers(label: MetricsObserver.Name.requestDuration)
        #expect(timers.compactMap { value("http.response.status_code", in: $0.dimensions) }.sorted() == ["200", "202"])
        #expect(timers.allSatisfy { $0.values.count == 1 })
    }

    @Test func anUnknownMethodIsRecordedAsOther() async throws {
        try await withMetrics { _, client, metrics in
            _ = try await send(client, "/status/200", method: "BREW")
            _ = try await send(client, "/status/200", method: .patch)
            let methods = metrics.timers(label: MetricsObserver.Name.requestDuration).compactMap { value("http.request.method", in: $0.dimensions) }
            #expect(methods.sorted() == ["PATCH", "_OTHER"])
        }
    }
}
