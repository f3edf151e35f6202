import ArgumentParser

/// curl options that Courier refuses on purpose: each is recognised so that the refusal can
/// say why and what to give instead (exit status 2), rather than call it unknown.
extension ClientOptions {
    /// Refuses the first refused option given, as the command line is read, before any file is
    /// read or anything is sent.
    func validate() throws {
        if insecure {
            throw ValidationError(
                "-k/--insecure is refused: certificate checks cannot be turned off; to trust a private authority give its certificate with --cacert FILE, or pin the server's key with --pin sha256/BASE64"
            )
        }
        if oldTLS {
            throw ValidationError(
                "--tlsv1, --tlsv1.0 and --tlsv1.1 are refused: TLS 1.2 is the oldest version accepted by default; give --tls-min 1.3 to require TLS 1.3, or --tls-min 1.1 or 1.0 for a legacy server you trust"
            )
        }
    }
}
