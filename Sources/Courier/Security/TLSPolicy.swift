import Foundation

/// Which servers a client trusts, which keys it pins, and which certificate it shows:
/// ``ClientConfiguration/tls``.
///
/// The default trusts the system's root certificates and checks the host name, as a browser
/// does. Requests to a host with any other setting (a custom CA, pins, a client certificate)
/// use connections of their own, verified under that host's settings and never shared with
/// requests made under other settings; they negotiate HTTP/2 or HTTP/1.1 as any connection
/// does, and go through the configured proxy. See <doc:Security>.
///
/// ```swift
/// var tls = TLSPolicy()
/// tls.trustRoots = .system(adding: [.file("corporate-ca.pem")])
/// tls.pins = [HostPins(host: "*.example.com", pins: [try Pin("sha256/..."), try Pin("sha256/...")])]
/// ```
public struct TLSPolicy: Sendable, Hashable {
    /// The certificates a server's chain must lead to.
    public var trustRoots: TrustRoots
    /// Pins per host; a host that matches several entries must satisfy the first one.
    public var pins: [HostPins]
    /// The client certificate shown to every host without one of its own; none by default.
    public var clientIdentity: ClientIdentity?
    /// Client certificates per host (`api.example.com`, `*.example.com` or `*`); they take
    /// precedence over ``clientIdentity``, and a host name over a wildcard.
    public var hostIdentities: [String: ClientIdentity]
    /// The oldest TLS version accepted, on every connection of the client; TLS 1.2 by default.
    public var minimumVersion: MinimumTLSVersion = .tls12

    /// Creates a policy; the defaults trust the system roots, pin nothing and show no
    /// client certificate.
    public init(
        trustRoots: TrustRoots = .system,
        pins: [HostPins] = [],
        clientIdentity: ClientIdentity? = nil,
        hostIdentities: [String: ClientIdentity] = [:]
    ) {
        self.trustRoots = trustRoots
        self.pins = pins
        self.clientIdentity = clientIdentity
        self.hostIdentities = hostIdentities
    }

    /// The settings that apply to `host` at `now`, or `nil` when the defaults apply with
    /// `standardMinimum` as the oldest TLS version.
    func settings(for host: String, at now: Date, standardMinimum: MinimumTLSVersion) -> HostTLSSettings? {
        let pinned = pins.first { $0.applies(to: host, at: now) }
        let identity = identity(for: host)
        guard trustRoots != .system || pinned != nil || identity != nil || minimumVersion != standardMinimum else { return nil }
        return HostTLSSettings(trustRoots: trustRoots, pins: pinned, identity: identity, minimumVersion: minimumVersion)
    }

    /// The client certificate shown to `host`, if any.
    func identity(for host: String) -> ClientIdentity? {
        hostIdentity(for: host) ?? clientIdentity
    }

    /// The identity of the most specific entry of ``hostIdentities`` matching `host`: the
    /// host itself, then `*.` its parent domain, then `*`.
    private func hostIdentity(for host: String) -> ClientIdentity? {
        let matching = hostIdentities.filter { HostPattern($0.key).matches(host) }
        let mostSpecific = matching.keys.min { rank($0) < rank($1) || (rank($0) == rank($1) && $0 < $1) }
        return mostSpecific.flatMap { matching[$0] }
    }

    private func rank(_ pattern: String) -> Int {
        pattern == "*" ? 2 : pattern.hasPrefix("*.") ? 1 : 0
    }

    /// Whether some host may need settings other than the defaults.
    package var isDefault: Bool {
        trustRoots == .system && pins.isEmpty && clientIdentity == nil && hostIdentities.isEmpty
    }
}

/// The root certificates a server's chain must lead to.
public struct TrustRoots: Sendable, Hashable {
    /// Whether the system's roots are trusted.
    public var includesSystemRoots: Bool
    /// Further trusted certificates (PEM files may hold several).
    public var certificates: [TLSMaterial]

    /// The system's roots (on Linux, the distribution's CA bundle).
    public static let system = TrustRoots(includesSystemRoots: true, certificates: [])

    /// The system's roots and `certificates`.
    public static func system(adding certificates: [TLSMaterial]) -> TrustRoots {
        TrustRoots(includesSystemRoots: true, certificates: certificates)
    }

    /// Only `certificates`: a private CA, or a self-signed server certificate.
    public static func only(_ certificates: [TLSMaterial]) -> TrustRoots {
        TrustRoots(includesSystemRoots: false, certificates: certificates)
    }
}

/// The TLS settings of one host: the connection key, together with its origin.
struct HostTLSSettings: Sendable, Hashable {
    var trustRoots: TrustRoots
    var pins: HostPins?
    var identity: ClientIdentity?
    var minimumVersion: MinimumTLSVersion

    /// The most distinct settings a transport prepares (each is a TLS context and a pool of
    /// its own, kept until the transport goes).
    static let maximumDistinct = 256

    /// The error of a request that would need more than ``maximumDistinct`` settings.
    static func tooMany() -> CourierError {
        CourierError(
            .invalidConfiguration,
            "The requests of this client asked for more than \(maximumDistinct) different TLS settings (per host, or per request with CourierRequest.connection.tls); each keeps connections of its own, so reuse a few TLSPolicy values."
        )
    }
}
