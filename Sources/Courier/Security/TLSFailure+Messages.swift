extension TLSFailure {
    /// What went wrong with `host`, and what to do about it.
    package func message(host: String) -> String {
        switch self {
        case .wrongHost:
            return "The certificate of \(host) was issued for another name; use a URL with a name the certificate covers, or have the server's certificate fixed."
        case .expired:
            return "The certificate of \(host) (or one of its issuers) has expired; the server must renew it."
        case .notYetValid:
            return "The certificate of \(host) is not valid yet; check this machine's clock and the certificate's start date."
        case .selfSigned:
            return "\(host) sent a self-signed certificate that is not trusted; if you expected it, trust it with TrustRoots.only([...]) (courier: --cacert)."
        case .unknownAuthority:
            return "The certificate chain of \(host) does not lead to a trusted root; add its CA with TrustRoots.system(adding:) (courier: --cacert)."
        case .pinMismatch:
            return "No certificate in the verified chain of \(host) matches the host's pins: its key changed or the connection is intercepted. Change the pins only if the change is expected; no request was sent."
        case .clientCertificateRejected:
            return "\(host) refused the client certificate, or required one and got none; check the certificate and key (courier: --cert/--key or --p12) and that the server trusts their issuer."
        case .unsupportedVersion:
            return
                "\(host) speaks only a TLS version older than the client's minimum (TLS 1.2 by default), which is broken; have the server upgraded, or, for a legacy server you trust, lower TLSPolicy.minimumVersion to .insecureTLS11 or .insecureTLS10 (courier: --tls-min 1.1)."
        case .unusableMaterial:
            return "A certificate, key or PKCS#12 bundle for \(host) could not be used; check the files and the password."
        default:
            return "The TLS handshake with \(host) failed; check that the server speaks TLS on this port and shares a protocol version with Courier."
        }
    }
}
