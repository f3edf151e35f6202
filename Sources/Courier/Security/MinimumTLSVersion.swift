/// The oldest TLS version a client agrees to speak: ``TLSPolicy/minimumVersion``.
///
/// TLS 1.2 by default, on every transport. TLS 1.0 and 1.1 are broken (RFC 8996 deprecates
/// them) and are reached only by naming them as insecure:
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.tls.minimumVersion = .tls13                 // stricter
/// configuration.tls.minimumVersion = .insecureTLS11         // a legacy server you cannot fix
/// ```
///
/// A server that speaks only older versions fails the handshake with
/// ``CourierError/Kind/tls`` and ``TLSFailure/unsupportedVersion``; nothing is sent.
public struct MinimumTLSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The version's rank: 10 for TLS 1.0 up to 13 for TLS 1.3.
    let rank: Int

    private init(rank: Int) { self.rank = rank }

    /// TLS 1.3 only.
    public static let tls13 = MinimumTLSVersion(rank: 13)
    /// TLS 1.2 and later: the default.
    public static let tls12 = MinimumTLSVersion(rank: 12)
    /// TLS 1.1 and later. Insecure: only for a legacy server that cannot be upgraded.
    public static let insecureTLS11 = MinimumTLSVersion(rank: 11)
    /// TLS 1.0 and later. Insecure: only for a legacy server that cannot be upgraded.
    public static let insecureTLS10 = MinimumTLSVersion(rank: 10)

    /// Whether this floor lets a broken version (TLS 1.0 or 1.1) through.
    public var isInsecure: Bool { rank < 12 }

    public var description: String { "TLS 1.\(rank - 10)" }

    public static func < (lhs: MinimumTLSVersion, rhs: MinimumTLSVersion) -> Bool { lhs.rank < rhs.rank }
}
