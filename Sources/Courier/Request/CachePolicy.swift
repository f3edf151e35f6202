/// How a request uses the client's HTTP cache.
///
/// A client without a cache behaves as if the cache were always empty: every policy loads from
/// the network, except ``onlyIfCached``, which answers `504 Gateway Timeout` as RFC 9111 §5.2.1.7
/// prescribes.
public enum CachePolicy: Sendable, Hashable {
    /// Follow HTTP's caching rules.
    case useProtocolPolicy
    /// Skip the lookup and load from the network; store the result.
    case reload
    /// Neither read nor write the cache.
    case noStore
    /// Always revalidate a stored response before using it.
    case noCache
    /// Use a stored response whatever its age; load only when there is none.
    case returnCacheElseLoad
    /// Use a stored response or fail with `504`; never touch the network.
    case onlyIfCached
}
