/// How a client adapts each origin's limit on requests in flight to what the origin can take.
///
/// Each origin (scheme, host and port) gets its own limit, which starts at ``initialLimit``.
/// The limit grows by one after as many good exchanges as the limit itself, counted only
/// while the origin has that many requests in flight; it is multiplied by ``backoffRatio``
/// (rounded down, and always by at least one) after each sign of overload: a connection that
/// fails or times out, a 429 or 503 response, or a response more than ``latencyTolerance``
/// times slower than the origin's fastest recent one. It never leaves the range from
/// ``minimumLimit`` to ``Limits/maximumConcurrentRequestsPerHost``.
///
/// ```swift
/// configuration.limits.maximumConcurrentRequestsPerHost = 8
/// configuration.limits.adaptiveConcurrency = AdaptiveConcurrency(initialLimit: 2)
/// ```
public struct AdaptiveConcurrency: Sendable, Hashable {
    /// The limit an origin starts with; 2 by default. Raised to ``minimumLimit`` and lowered
    /// to ``Limits/maximumConcurrentRequestsPerHost`` when it is out of range.
    public var initialLimit: Int
    /// The lowest limit; 1 by default, and never less than 1.
    public var minimumLimit: Int
    /// The factor an origin's limit is multiplied by on a sign of overload, between 0 and 1;
    /// 0.9 by default.
    public var backoffRatio: Double
    /// How many times slower than the origin's fastest recent exchange an exchange may be
    /// before it counts as a sign of overload; 2 by default, and never less than 1. Pass
    /// `.infinity` to let only errors, 429 and 503 shrink the limit.
    public var latencyTolerance: Double

    /// Creates adaptive limits.
    public init(initialLimit: Int = 2, minimumLimit: Int = 1, backoffRatio: Double = 0.9, latencyTolerance: Double = 2) {
        self.initialLimit = initialLimit
        self.minimumLimit = minimumLimit
        self.backoffRatio = backoffRatio
        self.latencyTolerance = latencyTolerance
    }
}
