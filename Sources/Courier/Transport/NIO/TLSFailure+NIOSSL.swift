import NIOSSL

extension TLSFailure {
    /// Alerts a server sends when it refuses the certificate a client showed, or wanted one.
    private static let clientCertificateAlerts = [
        "ALERT_CERTIFICATE_REQUIRED", "ALERT_BAD_CERTIFICATE", "ALERT_UNKNOWN_CA", "ALERT_CERTIFICATE_UNKNOWN",
        "ALERT_UNSUPPORTED_CERTIFICATE", "ALERT_CERTIFICATE_REVOKED", "ALERT_CERTIFICATE_EXPIRED", "ALERT_ACCESS_DENIED",
    ]

    /// The reason a NIOSSL or BoringSSL error states: a host name that did not match, an
    /// alert refusing the client's certificate, or a failed handshake.
    static func classify(_ error: any Error) -> TLSFailure {
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname { return .wrongHost }
        let text = String(describing: error).uppercased()
        if clientCertificateAlerts.contains(where: { text.contains($0) }) { return .clientCertificateRejected }
        if text.contains("UNSUPPORTED_PROTOCOL") || text.contains("PROTOCOL_VERSION") { return .unsupportedVersion }
        return .handshakeFailed
    }

    /// Whether `error` says the peer's certificate failed verification (BoringSSL's own
    /// verification, which does not say why).
    static func isVerificationFailure(_ error: any Error) -> Bool {
        String(describing: error).uppercased().contains("CERTIFICATE_VERIFY_FAILED")
    }
}
