import CoreMetrics
import Foundation

/// Records every request a client makes as swift-metrics metrics, named and dimensioned after
/// OpenTelemetry's semantic conventions for HTTP clients.
///
/// A client records its requests by itself once a backend is bootstrapped with
/// `MetricsSystem.bootstrap(_:)` before the client is created: it adds this observer. Add one
/// yourself to record into another factory:
///
/// ```swift
/// var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
/// configuration.observers.append(MetricsObserver(factory: requestMetrics))
/// ```
///
/// | metric | kind | what |
/// |---|---|---|
/// | `http.client.request.duration` | timer (seconds) | each request, from its start to its result: retries, redirects and cache included |
/// | `http.client.active_requests` | meter | requests started and not yet finished |
/// | `http.client.response.body.size` | recorder (bytes) | the final response's body, or its `Content-Length` when the body was streamed |
/// | `courier.client.retries` | counter | attempts sent again by the retry policy |
/// | `courier.client.redirects` | counter | redirects followed |
///
/// Every metric carries `http.request.method` (one of the methods RFC 9110 and RFC 5789 name,
/// else `_OTHER`, so that hostile methods cannot multiply the series), `server.address`,
/// `server.port` and `url.scheme`. The duration and the body size also carry
/// `http.response.status_code`, `courier.response.status_class` (`2xx`…) and
/// `courier.response.source` when there is a response: `network` (a cache miss, or no cache),
/// `cache` (a fresh hit), `revalidated` (a hit the server confirmed), `stale` (a stale hit the
/// cache policy allowed) or `coalesced` (another identical request's response, shared while
/// both were in flight; ``CourierResponse/isCoalesced``), and `error.type` when the request failed: the
/// ``Courier/CourierError/Kind`` of a failure, or the status code of a `4xx` or `5xx` answer.
public struct MetricsObserver: RequestObserver {
    private let fixedFactory: (any MetricsFactory)?

    /// Creates an observer that records into `factory`, or, when it is `nil`, into the factory
    /// swift-metrics gives at each event (`MetricsSystem.factory`: the one bootstrapped, or a
    /// task's own). While that is the no-op factory, the observer records nothing and costs
    /// next to nothing.
    public init(factory: (any MetricsFactory)? = nil) {
        self.fixedFactory = factory
    }

    /// The observer a client adds by itself: one recording into `MetricsSystem.factory`
    /// when a backend is bootstrapped (or a task's own factory is set) as the client is
    /// created and `observers` holds no metrics observer already; none otherwise, so that a
    /// program without metrics pays nothing.
    static func bootstrapped(besides observers: [any RequestObserver]) -> [any RequestObserver] {
        guard !(MetricsSystem.factory is NOOPMetricsHandler), !observers.contains(where: { $0 is MetricsObserver }) else { return [] }
        return [MetricsObserver()]
    }

    /// Where to record now; `nil` when nothing would be kept.
    private var factory: (any MetricsFactory)? {
        let factory = fixedFactory ?? MetricsSystem.factory
        return factory is NOOPMetricsHandler ? nil : factory
    }

    /// The names of the metrics.
    public enum Name {
        /// `http.client.request.duration`
        public static let requestDuration = "http.client.request.duration"
        /// `http.client.active_requests`
        public static let activeRequests = "http.client.active_requests"
        /// `http.client.response.body.size`
        public static let responseBodySize = "http.client.response.body.size"
        /// `courier.client.retries`
        public static let retries = "courier.client.retries"
        /// `courier.client.redirects`
        public static let redirects = "courier.client.redirects"
    }

    /// Counts the request as active.
    public func requestWillStart(_ event: RequestEvent) {
        guard let factory else { return }
        Meter(label: Name.activeRequests, dimensions: Self.target(of: event.request), factory: factory).increment()
    }

    /// Records the request's duration, body size and redirects, and counts it inactive.
    public func requestDidStop(_ event: RequestEvent) {
        guard let factory else { return }
        let target = Self.target(of: event.request)
        Meter(label: Name.activeRequests, dimensions: target, factory: factory).decrement()
        var outcome = target
        if let response = event.response {
            outcome.append(("http.response.status_code", String(response.status)))
            outcome.append(("courier.response.status_class", "\(response.status / 100)xx"))
            outcome.append(("courier.response.source", HTTPConventions.source(of: response)))
            if response.status >= 400, event.error == nil { outcome.append(("error.type", String(response.status))) }
        }
        if let error = event.error { outcome.append(("error.type", HTTPConventions.errorType(error))) }
        let elapsed = event.elapsed.components
        let nanoseconds = elapsed.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        CoreMetrics.Timer(label: Name.requestDuration, dimensions: outcome, preferredDisplayUnit: .seconds, factory: factory)
            .recordNanoseconds(nanoseconds.overflow ? Int64.max : nanoseconds.partialValue &+ elapsed.attoseconds / 1_000_000_000)
        guard let response = event.response else { return }
        if let size = Self.bodySize(of: response) {
            Recorder(label: Name.responseBodySize, dimensions: outcome, factory: factory).record(size)
        }
        if !response.redirects.isEmpty {
            Counter(label: Name.redirects, dimensions: target, factory: factory).increment(by: response.redirects.count)
        }
    }

    /// Counts the retry.
    public func requestWillRetry(_ event: RequestEvent) {
        guard let factory else { return }
        Counter(label: Name.retries, dimensions: Self.target(of: event.request), factory: factory).increment()
    }

    /// The dimensions every metric carries: method, server and scheme.
    static func target(of request: CourierHTTPRequest) -> [(String, String)] {
        [
            ("http.request.method", HTTPConventions.method(request.method)),
            ("server.address", request.url.host ?? ""),
            ("server.port", String(HTTPConventions.port(of: request.url))),
            ("url.scheme", request.url.scheme?.lowercased() ?? ""),
        ]
    }

    /// The body's size: the bytes delivered, or `Content-Length` when none were collected.
    static func bodySize(of response: CourierResponse) -> Int? {
        if !response.body.isEmpty { return response.body.count }
        return response.headers.contentLength.flatMap { Int(exactly: $0) }
    }
}
