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

    /// A cache on `storage`, a memory store of 64 MiB unless you pass one.
    public init(storage: any CacheStorage = MemoryCacheStorage(), policy: AppCachePolicy = AppCachePolicy()) {
        self.storage = storage
        self.policy = policy
        self.heuristicLimit = .seconds(86_400)
        self.now = { Date() }
    }
}
