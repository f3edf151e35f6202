/// How a request uses the client's HTTP cache (see <doc:Caching>).
///
/// A client without a cache behaves as if the cache were always empty: every policy loads from
/// the network, except ``onlyIfCached``, which answers `504 Gateway Timeout` as RFC 9111 §5.2.1.7
/// prescribes.
public enum CachePolicy: Sendable, Hashable {
    /// Follow HTTP's caching rules (RFC 9111): serve fresh responses, revalidate stale ones.
    case `default`
    /// Skip the lookup and load from the network; store the result.
    case reload
    /// Neither read nor write the cache.
    case noStore
    /// Always revalidate a stored response before using it (MKNetworkKit's ignoreCache), except
    /// a fresh response marked `immutable` (RFC 8246), which is served as it is; ``reload``
    /// goes to the network even then.
    case noCache
    /// Use a stored response whatever its age; load only when there is none (MKNetworkKit's
    /// alwaysCache).
    case returnCacheElseLoad
    /// Use a stored response whatever its age, or answer `504`; never touch the network.
    case onlyIfCached
    /// Deliver the stored response at once, then the network's (MKNetworkKit's alwaysLoad):
    /// ``CourierClient/cachedThenFresh(_:)`` delivers both; `send` and `response(for:)` return only
    /// the network's, validated with the stored response's validators as ``noCache`` does.
    case cachedThenFresh
}
