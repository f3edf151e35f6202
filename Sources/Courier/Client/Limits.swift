/// How much a client takes on at once: the largest body it collects, the requests in flight,
/// the connections it keeps. Part of ``ClientConfiguration``; a request sets its own body limit
/// with ``CourierRequest/maximumBodySize``.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.limits.maximumConcurrentRequestsPerHost = 8
/// configuration.limits.maximumConnectionsPerHost = 8
/// ```
public struct Limits: Sendable, Hashable {
    /// The default limit on a collected body: 32 MiB.
    public static let defaultMaximumBodySize = 32 * 1024 * 1024

    /// The largest body collected for a response; past it the request fails with
    /// ``CourierError/Kind/responseTooLarge``. Streamed responses (``CourierClient/stream(_:body:)-(CourierRequest<Value>,_)``,
    /// downloads) are not collected and have no such limit. 32 MiB by default.
    public var maximumBodySize: Int
    /// The most requests in flight at once; more wait in priority order. 64 by default.
    public var maximumConcurrentRequests: Int
    /// The most requests in flight to one origin (scheme, host, port) at once; 8 by default,
    /// as many as the connections the default transport keeps per host, so that none of them
    /// sits idle while requests wait. With ``adaptiveConcurrency``, the upper bound of each
    /// origin's adaptive limit.
    ///
    /// Keep it at or below ``maximumConnectionsPerHost``: requests in flight beyond the number of
    /// connections wait inside the transport for a free one, and one that waits longer than the
    /// connect timeout fails with ``CourierError/Kind/timeout``.
    public var maximumConcurrentRequestsPerHost: Int
    /// The most connections the default transport opens to one host at once, and keeps; 8 by
    /// default. Tasks running on an event loop (see ``CourierClient/makeTaskExecutor()``) use
    /// connections of that loop, up to as many again per loop.
    public var maximumConnectionsPerHost: Int
    /// Adapts each origin's limit to its latency and errors, up to
    /// ``maximumConcurrentRequestsPerHost``; `nil`, the default, keeps every origin's limit at
    /// that maximum.
    public var adaptiveConcurrency: AdaptiveConcurrency?

    /// Creates limits.
    public init(
        maximumBodySize: Int = Limits.defaultMaximumBodySize,
        maximumConcurrentRequests: Int = 64,
        maximumConcurrentRequestsPerHost: Int = 8,
        maximumConnectionsPerHost: Int = 8,
        adaptiveConcurrency: AdaptiveConcurrency? = nil
    ) {
        self.maximumBodySize = maximumBodySize
        self.maximumConcurrentRequests = maximumConcurrentRequests
        self.maximumConcurrentRequestsPerHost = maximumConcurrentRequestsPerHost
        self.maximumConnectionsPerHost = maximumConnectionsPerHost
        self.adaptiveConcurrency = adaptiveConcurrency
    }
}
