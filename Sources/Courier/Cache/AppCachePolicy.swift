import Foundation

/// Cache rules an application adds to HTTP's (YTKRequest's cache time, version, sensitive
/// data and app version; MKNetworkKit's default lifetime). Each is off unless you set it.
///
/// Set them for every request in ``CacheConfiguration/policy``, or for one request in
/// ``Request/appCachePolicy``; a request's values take precedence field by field.
///
/// ```swift
/// var policy = AppCachePolicy()
/// policy.version = 2                              // entries stored under another version are misses
/// policy.defaultFreshness = .seconds(600)         // for responses that say nothing about caching
/// request.appCachePolicy = AppCachePolicy(fixedLifetime: .seconds(60))
/// ```
public struct AppCachePolicy: Sendable, Hashable {
    /// Keep successful responses to GET this long whatever their header fields say: they are
    /// stored even with `no-store` or without any freshness, and served without validation
    /// until the time is up (YTKRequest's `cacheTimeInSeconds`). A request's own `no-store`
    /// still prevents storing.
    public var fixedLifetime: Duration?
    /// The freshness lifetime of responses that give none (no `max-age`, no `Expires`), used
    /// instead of HTTP's heuristic; MKNetworkKit used 10 minutes.
    public var defaultFreshness: Duration?
    /// A number you raise to make every entry stored under another number a miss.
    public var version: Int?
    /// Data an entry must have been stored with to be used, such as the user's id; only its
    /// SHA-256 is stored.
    public var sensitiveData: String?
    /// Your application's version; entries stored by another version are misses.
    public var appVersion: String?

    /// Creates a policy; every rule is off unless given.
    public init(
        fixedLifetime: Duration? = nil, defaultFreshness: Duration? = nil, version: Int? = nil,
        sensitiveData: String? = nil, appVersion: String? = nil
    ) {
        self.fixedLifetime = fixedLifetime
        self.defaultFreshness = defaultFreshness
        self.version = version
        self.sensitiveData = sensitiveData
        self.appVersion = appVersion
    }

    /// This policy, with `override`'s rules where it sets them.
    func overridden(by override: AppCachePolicy?) -> AppCachePolicy {
        guard let override else { return self }
        return AppCachePolicy(
            fixedLifetime: override.fixedLifetime ?? fixedLifetime,
            defaultFreshness: override.defaultFreshness ?? defaultFreshness,
            version: override.version ?? version,
            sensitiveData: override.sensitiveData ?? sensitiveData,
            appVersion: override.appVersion ?? appVersion
        )
    }

    /// The names of the tags the policy writes on entries.
    enum Tag {
        static let fixedLifetime = "courier.fixed-lifetime"
        static let defaultFreshness = "courier.default-freshness"
        static let version = "courier.version"
        static let sensitiveData = "courier.sensitive-data-sha256"
        static let appVersion = "courier.app-version"
    }

    /// The tags an entry must carry to be used for a request under this policy.
    var matchedTags: [String: String] {
        var tags: [String: String] = [:]
        tags[Tag.version] = version.map { String($0) }
        tags[Tag.sensitiveData] = sensitiveData.map(CacheKey.digest)
        tags[Tag.appVersion] = appVersion
        return tags
    }

    /// Whether `entry` was stored under the same version, sensitive data and app version.
    func accepts(_ entry: CacheEntry) -> Bool {
        entry.tags[Tag.version] == version.map { String($0) } && entry.tags[Tag.appVersion] == appVersion
            && entry.tags[Tag.sensitiveData] == sensitiveData.map(CacheKey.digest)
    }

    /// The tags to store with a response that has `headers`.
    func tags(for headers: Headers) -> [String: String] {
        var tags = matchedTags
        if let fixedLifetime {
            tags[Tag.fixedLifetime] = String(fixedLifetime.timeInterval)
        } else if let defaultFreshness {
            let control = CacheControl(headers)
            if !control.contains("max-age") && !headers.contains("Expires") {
                tags[Tag.defaultFreshness] = String(defaultFreshness.timeInterval)
            }
        }
        return tags
    }
}
