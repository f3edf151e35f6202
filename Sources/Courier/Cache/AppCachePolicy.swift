import Foundation

/// Cache rules an application adds to HTTP's (YTKRequest's cache time, version, sensitive
/// data and app version; MKNetworkKit's default lifetime). Each is off unless you set it.
///
/// Set them for every request in ``CacheConfiguration/policy``, or for one request in
/// ``CourierRequest/appCachePolicy``; a request's values take precedence field by field.
///
/// ```swift
/// var policy = AppCachePolicy()
/// policy.version = 2                              // entries stored under another version are misses
/// policy.defaultFreshness = .seconds(600)         // for responses that say nothing about caching
/// policy.imageFreshness = .seconds(7 * 86_400)    // for images that say nothing about caching
/// policy.servesStaleWhenOffline = true            // the stored response when the server is unreachable
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
    /// The freshness lifetime of image responses (`image/…`) that give none (no `max-age`, no
    /// `Expires`), used instead of ``defaultFreshness`` and HTTP's heuristic: images rarely
    /// change under a URL, and MKNetworkKit kept them 7 days (`.seconds(7 * 86_400)`).
    public var imageFreshness: Duration?
    /// Whether a stale stored response is delivered when the server cannot be reached
    /// (connection refused or failed, host unreachable, timeout): the response comes with
    /// ``CourierResponse/Source/stale`` and its `Age`, as RFC 9111 §4.2.4 allows a disconnected cache.
    /// A response marked `must-revalidate` gives `504` instead, and one marked `no-cache` the
    /// failure, as without this rule; `stale-if-error` still covers `5xx` answers on its own.
    /// `nil` leaves the client's choice; a request's `false` turns the client's `true` off.
    public var servesStaleWhenOffline: Bool?

    /// Creates a policy; every rule is off unless given.
    public init(
        fixedLifetime: Duration? = nil, defaultFreshness: Duration? = nil, version: Int? = nil,
        sensitiveData: String? = nil, appVersion: String? = nil, imageFreshness: Duration? = nil,
        servesStaleWhenOffline: Bool? = nil
    ) {
        self.fixedLifetime = fixedLifetime
        self.defaultFreshness = defaultFreshness
        self.version = version
        self.sensitiveData = sensitiveData
        self.appVersion = appVersion
        self.imageFreshness = imageFreshness
        self.servesStaleWhenOffline = servesStaleWhenOffline
    }

    /// This policy, with `override`'s rules where it sets them.
    func overridden(by override: AppCachePolicy?) -> AppCachePolicy {
        guard let override else { return self }
        return AppCachePolicy(
            fixedLifetime: override.fixedLifetime ?? fixedLifetime,
            defaultFreshness: override.defaultFreshness ?? defaultFreshness,
            version: override.version ?? version,
            sensitiveData: override.sensitiveData ?? sensitiveData,
            appVersion: override.appVersion ?? appVersion,
            imageFreshness: override.imageFreshness ?? imageFreshness,
            servesStaleWhenOffline: override.servesStaleWhenOffline ?? servesStaleWhenOffline
        )
    }

    /// The names of the tags the policy writes on entries.
    enum Tag {
        static let fixedLifetime = "courier.fixed-lifetime"
        static let defaultFreshness = "courier.default-freshness"
        static let version = "courier.version"
        static let sensitiveData = "courier.sensitive-data-sha256"
        static let appVersion = "courier.app-version"
        /// Marks an entry stored by a shared cache, whose freshness and revalidation follow
        /// the shared-cache rules (`s-maxage`, `proxy-revalidate`) wherever it is read.
        static let shared = "courier.shared"
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
    func accepts(_ entry: CourierCacheEntry) -> Bool {
        entry.tags[Tag.version] == version.map { String($0) } && entry.tags[Tag.appVersion] == appVersion
            && entry.tags[Tag.sensitiveData] == sensitiveData.map(CacheKey.digest)
    }

    /// The tags to store with a response that has `headers`.
    func tags(for headers: Headers) -> [String: String] {
        var tags = matchedTags
        if let fixedLifetime {
            tags[Tag.fixedLifetime] = String(fixedLifetime.timeInterval)
        } else if let lifetime = Self.isImage(headers) ? imageFreshness ?? defaultFreshness : defaultFreshness {
            let control = CacheControl(headers)
            if !control.contains("max-age") && !headers.contains("Expires") {
                tags[Tag.defaultFreshness] = String(lifetime.timeInterval)
            }
        }
        return tags
    }

    /// Whether `headers` describe an image: a `Content-Type` of `image/…`.
    static func isImage(_ headers: Headers) -> Bool {
        guard let type = headers["Content-Type"] else { return false }
        return type.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("image/")
    }
}
