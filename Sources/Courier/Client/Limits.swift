/// How much a client takes on at once: the largest body it collects, the requests in flight,
/// the connections it keeps. Part of ``ClientConfiguration``; a request sets its own body limit
/// with ``CourierRequest/maximumBodySize``.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// // Sixteen connections per host, and so sixteen requests in flight per host.
/// configuration.limits.maximumConnectionsPerHost = 16
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
    /// The most requests in flight to one origin (scheme, host, port) at once. Unless set, it
    /// follows ``maximumConnectionsPerHost`` (8 when neither is set), so that raising the
    /// connections alone puts every one of them to use. With ``adaptiveConcurrency``, the
    /// upper bound of each origin's adaptive limit.
    ///
    /// Set above ``maximumConnectionsPerHost``, requests in flight beyond the number of
    /// connections wait inside the transport for a free one, and one that waits longer than the
    /// connect timeout fails with ``CourierError/Kind/timeout``.
    public var maximumConcurrentRequestsPerHost: Int {
        get { requestsPerHost ?? connectionsPerHost ?? Limits.defaultPerHost }
        set { requestsPerHost = newValue }
    }
    /// The most connections the default transport opens to one host at once, and keeps. Unless
    /// set, it follows ``maximumConcurrentRequestsPerHost`` (8 when neither is set), so that
    /// every request in flight has a connection. Tasks running on an event loop (see
    /// ``CourierClient/makeTaskExecutor()``) use connections of that loop, up to as many again
    /// per loop.
    public var maximumConnectionsPerHost: Int {
        get { connectionsPerHost ?? requestsPerHost ?? Limits.defaultPerHost }
        set { connectionsPerHost = newValue }
    }
    /// Requests in flight and connections per host when neither limit is set: 8, as many
    /// connections as AsyncHTTPClient keeps per host.
    static let defaultPerHost = 8
    /// The per-host limits as set; `nil` follows the other one.
    private var requestsPerHost: Int?
    private var connectionsPerHost: Int?
    /// Adapts each origin's limit to its latency and errors, up to
    /// ``maximumConcurrentRequestsPerHost``; `nil`, the default, keeps every origin's limit at
    /// that maximum.
    public var adaptiveConcurrency: AdaptiveConcurrency?

    /// Creates limits; a per-host limit left `nil` follows the other one (8 when both are).
    public init(
        maximumBodySize: Int = Limits.defaultMaximumBodySize,
        maximumConcurrentRequests: Int = 64,
        maximumConcurrentRequestsPerHost: Int? = nil,
        maximumConnectionsPerHost: Int? = nil,
        adaptiveConcurrency: AdaptiveConcurrency? = nil
    ) {
        self.maximumBodySize = maximumBodySize
        self.maximumConcurrentRequests = maximumConcurrentRequests
        requestsPerHost = maximumConcurrentRequestsPerHost
        connectionsPerHost = maximumConnectionsPerHost
        self.adaptiveConcurrency = adaptiveConcurrency
    }
}

extension Limits {
    /// The first per-host limit set outside its range, named as set: one that follows the
    /// other is never blamed for it.
    func perHostRangeError() -> CourierError? {
        requestsPerHost.flatMap { ConfigurationRanges.countError("limits.maximumConcurrentRequestsPerHost", $0, minimum: 1) }
            ?? connectionsPerHost.flatMap { ConfigurationRanges.countError("limits.maximumConnectionsPerHost", $0, minimum: 1) }
    }
}
