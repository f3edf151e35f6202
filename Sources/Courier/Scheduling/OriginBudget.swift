/// A budget of requests to each origin that a client shares with other clients, in other
/// processes and on other hosts: `PostgresOriginBudget` (in `CourierLimitsPostgres`) keeps one in
/// PostgreSQL for a fleet.
///
/// ```swift
/// let database = URL(string: "postgres://app@db.internal/app")!
/// configuration.originBudget = try PostgresOriginBudget(url: database, maximumConcurrentRequestsPerOrigin: 8)
/// ```
///
/// The client's own limits (``Limits``) apply first: every exchange (each redirect hop, each
/// retry) takes a slot in the client's scheduler, then a permit from the budget, and gives both
/// back when it ends. Every response head is shown to ``record(status:headers:from:)``, so a
/// `429` seen by one client can hold the origin back for all of them. Without a budget, the
/// default, the client's limits are the only ones.
public protocol OriginBudget: Sendable {
    /// Waits until one more exchange with `origin` (`scheme://host:port`) may begin, and
    /// returns the permit the exchange holds until it ends.
    ///
    /// Throw `CancellationError` when the task is cancelled while waiting, and any error once
    /// `deadline` (the request's, when it has one) has passed: the client reports a timeout. A
    /// budget whose store cannot be reached should grant the permit rather than hold requests
    /// back, and say so in its own way.
    func permit(for origin: String, until deadline: ContinuousClock.Instant?) async throws -> OriginPermit

    /// Takes note of a response head from `origin`: a `429` or `503` with `Retry-After`, or
    /// `RateLimit` and `RateLimit-Policy` fields, say how long the origin wants to be left
    /// alone or how much of its quota is left. Called for every response head before its body
    /// is read, so it must not wait.
    func record(status: Int, headers: Headers, from origin: String)
}

/// What an exchange holds from an ``OriginBudget`` until it ends.
public struct OriginPermit: Sendable {
    private let onRelease: (@Sendable () -> Void)?

    /// A permit whose end calls `onRelease`, once.
    public init(onRelease: @escaping @Sendable () -> Void) {
        self.onRelease = onRelease
    }

    private init() {
        onRelease = nil
    }

    /// A permit with nothing to give back: what a budget grants when it does not limit the
    /// origin, or cannot reach its store.
    public static let unrestricted = OriginPermit()

    /// Ends the permit; the client calls it once, when the exchange ends.
    func release() {
        onRelease?()
    }
}
