import Foundation

/// A cookie as a ``CookieJar`` keeps it (RFC 6265 §5.3): name and value, where it is sent,
/// until when, and its flags.
public struct CourierCookie: Sendable, Hashable, Codable {
    /// The `SameSite` attribute (RFC 6265bis), stored as received.
    ///
    /// Courier is not a browser and has no notion of the site a request comes from, so the
    /// attribute does not change which requests carry the cookie; it is kept for callers that
    /// inspect the jar.
    public enum SameSite: String, Sendable, Hashable, Codable {
        /// `SameSite=Strict`.
        case strict
        /// `SameSite=Lax`.
        case lax
        /// `SameSite=None`.
        case none
    }

    /// The cookie's name.
    public var name: String
    /// The cookie's value, as the server sent it.
    public var value: String
    /// The domain, lower-cased and without a leading dot: the host that set it for a
    /// host-only cookie, else the `Domain` attribute.
    public var domain: String
    /// The path prefix of the URLs the cookie is sent to.
    public var path: String
    /// When the cookie expires; `nil` for a session cookie, which lives only as long as its
    /// jar and is saved only to a Netscape cookie file (see ``CookieFileFormat``).
    public var expires: Date?
    /// Whether the cookie is sent only over https.
    public var isSecure: Bool
    /// Whether the server marked the cookie `HttpOnly`; HTTP requests carry it either way.
    public var isHTTPOnly: Bool
    /// Whether the cookie is sent only to ``domain`` itself (no `Domain` attribute was given)
    /// rather than to its subdomains too.
    public var isHostOnly: Bool
    /// The `SameSite` attribute, if the server sent a known value.
    public var sameSite: SameSite?
    /// When the cookie was first stored; a replacement keeps the time of the cookie it replaced.
    public var created: Date
    /// When the cookie was last sent or stored.
    public var lastAccessed: Date

    /// Creates a cookie.
    public init(
        name: String,
        value: String,
        domain: String,
        path: String = "/",
        expires: Date? = nil,
        isSecure: Bool = false,
        isHTTPOnly: Bool = false,
        isHostOnly: Bool = true,
        sameSite: SameSite? = nil,
        created: Date = Date(),
        lastAccessed: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.isHostOnly = isHostOnly
        self.sameSite = sameSite
        self.created = created
        self.lastAccessed = lastAccessed ?? created
    }

    /// Whether the cookie outlives its jar: it has an expiry date.
    public var isPersistent: Bool { expires != nil }

    /// Whether the cookie has expired at `now`.
    public func isExpired(at now: Date) -> Bool {
        guard let expires else { return false }
        return expires <= now
    }

    /// Whether `other` has the same name, domain and path, so that storing one replaces the other.
    func replaces(_ other: CourierCookie) -> Bool {
        name == other.name && domain == other.domain && path == other.path
    }
}
