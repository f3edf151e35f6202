import Foundation

/// The rules of a cookie jar as a pure value: storing a `Set-Cookie` field received from a
/// URL (RFC 6265 §5.3, with RFC 6265bis's safeguards) and choosing the cookies a URL gets
/// (§5.4). ``CookieJar`` wraps it with a lock, a clock and a file; tests drive it directly.
struct CookieStore: Sendable {
    /// What became of a `Set-Cookie` field.
    enum Decision: Sendable, Equatable {
        /// The cookie was stored, new or replacing one with its name, domain and path.
        case stored
        /// The cookie had already expired: it removed the one it would replace, if any.
        case removed
        /// The field was ignored, for the reason given.
        case rejected(String)
    }

    /// The most cookies kept for one domain; the least recently used go first.
    static let maximumPerDomain = 180
    /// The most cookies kept in all.
    static let maximumTotal = 3000

    let publicSuffixes: PublicSuffixList
    /// The cookies, in the order they were first stored.
    private(set) var cookies: [CourierCookie] = []

    init(publicSuffixes: PublicSuffixList, cookies: [CourierCookie] = []) {
        self.publicSuffixes = publicSuffixes
        self.cookies = cookies
    }

    /// Stores the cookie `field` sets, received in a response from `url` at `now`.
    mutating func receive(_ field: String, from url: URL, now: Date) -> Decision {
        guard let target = CookieTarget(url) else { return .rejected("the URL has no host") }
        guard let set = SetCookie(field) else { return .rejected("not a name=value pair") }
        var cookie = CourierCookie(
            name: set.name, value: set.value, domain: target.host, path: set.path ?? target.defaultPath,
            isSecure: set.isSecure, isHTTPOnly: set.isHTTPOnly, sameSite: set.sameSite, created: now
        )
        if let maxAge = set.maxAge {
            cookie.expires = maxAge <= 0 ? .distantPast : now.addingTimeInterval(min(Double(maxAge), Date.distantFuture.timeIntervalSince(now)))
        } else {
            cookie.expires = set.expires
        }
        if let domain = set.domain {
            if target.isIPAddress || publicSuffixes.isPublicSuffix(domain) {
                // Only the host itself: the cookie stays host-only.
                guard domain == target.host else {
                    return .rejected(target.isIPAddress ? "an IP address matches no other Domain" : "\(domain) is a public suffix")
                }
            } else {
                guard CookieStore.domain(target.host, matches: domain) else {
                    return .rejected("\(target.host) is not within the domain \(domain)")
                }
                cookie.domain = domain
                cookie.isHostOnly = false
            }
        }
        if let reason = rejection(of: cookie, from: target) { return .rejected(reason) }
        if cookie.isExpired(at: now) {
            cookies.removeAll { $0.replaces(cookie) }
            return .removed
        }
        put(cookie)
        return .stored
    }

    /// The cookies `url` gets at `now`, in the order of its `Cookie` header: longer paths
    /// first, then earlier creation. Marks them used and drops expired cookies.
    mutating func cookies(for url: URL, now: Date) -> [CourierCookie] {
        removeExpired(at: now)
        guard let target = CookieTarget(url) else { return [] }
        var chosen: [(index: Int, cookie: CourierCookie)] = []
        for (index, cookie) in cookies.enumerated() where CookieStore.cookie(cookie, isSentTo: target) {
            cookies[index].lastAccessed = now
            chosen.append((index, cookie))
        }
        chosen.sort { a, b in
            let (lengthA, lengthB) = (a.cookie.path.utf8.count, b.cookie.path.utf8.count)
            if lengthA != lengthB { return lengthA > lengthB }
            if a.cookie.created != b.cookie.created { return a.cookie.created < b.cookie.created }
            return a.index < b.index
        }
        return chosen.map(\.cookie)
    }

    /// Removes the cookies that expired at `now`.
    mutating func removeExpired(at now: Date) {
        cookies.removeAll { $0.isExpired(at: now) }
    }

    /// Removes every cookie `shouldRemove` picks.
    mutating func removeAll(where shouldRemove: (CourierCookie) -> Bool) {
        cookies.removeAll(where: shouldRemove)
    }

    /// Why `cookie` may not be stored from `target`, or `nil` when it may.
    private func rejection(of cookie: CourierCookie, from target: CookieTarget) -> String? {
        if cookie.isSecure, !target.isSecure {
            return "a Secure cookie may only be set over https"
        }
        if let reason = CookieStore.prefixRejection(of: cookie) { return reason }
        if !target.isSecure {
            // An insecure response may not replace or shadow a Secure cookie (RFC 6265bis §5.7).
            let shadows = cookies.contains { existing in
                existing.isSecure && existing.name == cookie.name
                    && (CookieStore.domain(existing.domain, matches: cookie.domain) || CookieStore.domain(cookie.domain, matches: existing.domain))
                    && CookieStore.path(cookie.path, matches: existing.path)
            }
            if shadows { return "it would replace a Secure cookie over an insecure connection" }
        }
        return nil
    }

    /// Why the prefix of `cookie`'s name forbids it (RFC 6265bis §4.1.3), or `nil` when it
    /// does not.
    static func prefixRejection(of cookie: CourierCookie) -> String? {
        let lowerName = cookie.name.lowercased()
        if lowerName.hasPrefix("__secure-"), !cookie.isSecure {
            return "a __Secure- cookie needs the Secure attribute"
        }
        if lowerName.hasPrefix("__host-"), !cookie.isSecure || !cookie.isHostOnly || cookie.path != "/" {
            return "a __Host- cookie needs Secure, Path=/ and no Domain"
        }
        return nil
    }

    /// Stores a cookie read from a file rather than received: it replaces the one with its
    /// name, domain and path, keeping that one's creation time. Returns `false`, storing
    /// nothing, for a cookie expired at `now`, one for every host of a public suffix, or one
    /// its name's prefix forbids.
    mutating func insert(_ cookie: CourierCookie, now: Date) -> Bool {
        guard !cookie.isExpired(at: now), !cookie.name.isEmpty, CookieStore.prefixRejection(of: cookie) == nil,
            cookie.isHostOnly || !publicSuffixes.isPublicSuffix(cookie.domain)
        else { return false }
        put(cookie)
        return true
    }

    /// Replaces the cookie with the name, domain and path of `cookie`, keeping its creation
    /// time, or adds `cookie` and evicts past the limits.
    private mutating func put(_ cookie: CourierCookie) {
        var cookie = cookie
        if let replaced = cookies.firstIndex(where: { $0.replaces(cookie) }) {
            cookie.created = cookies[replaced].created
            cookies[replaced] = cookie
        } else {
            cookies.append(cookie)
            evict(keeping: cookie)
        }
    }

    /// Drops the least recently used cookies past the per-domain and total limits, never `kept`.
    private mutating func evict(keeping kept: CourierCookie) {
        func dropOldest(among candidates: (CourierCookie) -> Bool) {
            let victim = cookies.indices
                .filter { candidates(cookies[$0]) && !cookies[$0].replaces(kept) }
                .min { cookies[$0].lastAccessed < cookies[$1].lastAccessed }
            if let victim { cookies.remove(at: victim) }
        }
        if cookies.count(where: { $0.domain == kept.domain }) > CookieStore.maximumPerDomain {
            dropOldest { $0.domain == kept.domain }
        }
        if cookies.count > CookieStore.maximumTotal {
            dropOldest { _ in true }
        }
    }

    /// Whether `cookie` goes with a request to `target` (RFC 6265 §5.4 step 1).
    static func cookie(_ cookie: CourierCookie, isSentTo target: CookieTarget) -> Bool {
        let domainMatches =
            cookie.isHostOnly || target.isIPAddress
            ? target.host == cookie.domain : domain(target.host, matches: cookie.domain)
        return domainMatches && path(target.path, matches: cookie.path) && (!cookie.isSecure || target.isSecure)
    }

    /// Domain matching (RFC 6265 §5.1.3): the same name, or a name that ends with a dot and
    /// the domain. The caller rules out IP addresses, which match only themselves.
    static func domain(_ host: String, matches domain: String) -> Bool {
        host == domain || (host.hasSuffix(domain) && host.utf8.dropLast(domain.utf8.count).last == UInt8(ascii: "."))
    }

    /// Path matching (RFC 6265 §5.1.4): the same path, or one below the cookie's path.
    static func path(_ requestPath: String, matches cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        let rest = requestPath.utf8.dropFirst(cookiePath.utf8.count)
        return rest.isEmpty || cookiePath.hasSuffix("/") || rest.first == UInt8(ascii: "/")
    }
}
