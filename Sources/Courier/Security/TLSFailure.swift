/// Why a TLS connection failed: the reason carried by a ``CourierError`` of kind
/// ``CourierError/Kind/tls`` in ``CourierError/tlsFailure``.
///
/// A struct with static members rather than an enum, so that reasons can be added without
/// breaking a `switch`.
public struct TLSFailure: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// The certificate is valid, but not for the host name (or IP address) of the URL.
    public static let wrongHost = TLSFailure("wrongHost")
    /// The server's certificate has expired.
    public static let expired = TLSFailure("expired")
    /// The server's certificate is not valid yet.
    public static let notYetValid = TLSFailure("notYetValid")
    /// The server sent a self-signed certificate that is not among the trusted roots.
    public static let selfSigned = TLSFailure("selfSigned")
    /// The chain does not lead to a trusted root certificate.
    public static let unknownAuthority = TLSFailure("unknownAuthority")
    /// The chain verified, but no certificate in it matches a pin for the host.
    public static let pinMismatch = TLSFailure("pinMismatch")
    /// The server refused the client certificate, or asked for one and got none.
    public static let clientCertificateRejected = TLSFailure("clientCertificateRejected")
    /// A certificate, key or PKCS#12 file could not be read or parsed, or its password is wrong.
    public static let unusableMaterial = TLSFailure("unusableMaterial")
    /// The server speaks only TLS versions older than the client's
    /// ``TLSPolicy/minimumVersion`` (or only newer ones than the client offers).
    public static let unsupportedVersion = TLSFailure("unsupportedVersion")
    /// The handshake failed for another reason (no common protocol version or cipher, a
    /// broken peer, a certificate that did not verify for a reason not told apart here).
    public static let handshakeFailed = TLSFailure("handshakeFailed")

    /// The reason's name, e.g. `pinMismatch`.
    public var description: String { name }

    /// An error of kind ``CourierError/Kind/tls`` with this reason.
    func error(_ message: String) -> CourierError {
        var error = CourierError(.tls, message)
        error.tlsFailure = self
        return error
    }
}
