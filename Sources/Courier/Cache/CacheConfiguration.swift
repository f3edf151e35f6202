import Foundation

/// A client's HTTP cache: where responses are stored and the rules added to HTTP's.
///
/// The cache is off until you set ``ClientConfiguration/cache``:
///
/// ```swift
/// var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
/// configuration.cache = CacheConfiguration(storage: MemoryCacheStorage(maximumBytes: 16 << 20))
/// configuration.cache?.policy.defaultFreshness = .seconds(600)
/// ```
///
/// See <doc:Caching> for what is stored and for how long.
public struct CacheConfiguration: Sendable {
    /// Where entries are kept.
    public var storage: any CacheStorage
    /// The application's rules, for every request; a request's ``CourierRequest/appCachePolicy``
    /// overrides them field by field.
    public var policy: AppCachePolicy
    /// The longest heuristic freshness lifetime given to a response that has a
    /// `Last-Modified` but no explicit lifetime; one day by default.
    public var heuristicLimit: Duration
    /// The present, for ages and freshness; tests pass a clock they move themselves.
    public var now: @Sendable () -> Date
    /// Whether the cache is a shared cache in RFC 9111's sense, one store for every user's
    /// requests, as a cache in PostgreSQL that many services share may be; `false` by default.
    ///
    /// A private cache (the default) files each response under the credentials that fetched it
    /// (the `Authorization` field, the authenticator's identity, the client certificate), so
    /// that no credential is ever answered with another's response, and follows the rules for
    /// private caches. A shared cache files every response under its URL alone, and so follows
    /// the rules for shared caches (RFC 9111 §3, §3.5, §5.2.2): it does not store a response
    /// marked `private`; it stores a response to a request with credentials only when the
    /// response says `public`, `s-maxage` or `must-revalidate`; `s-maxage` takes the place of
    /// `max-age`; and `proxy-revalidate` (or `s-maxage`) forbids serving the response stale,
    /// as `must-revalidate` does.
    public var isShared: Bool

    /// A cache on `storage`, a memory store of 64 MiB unless you pass one.
    public init(storage: any CacheStorage = MemoryCacheStorage(), policy: AppCachePolicy = AppCachePolicy()) {
        self.storage = storage
        self.policy = policy
        self.heuristicLimit = .seconds(86_400)
        self.isShared = false
        self.now = { Date() }
    }
}
