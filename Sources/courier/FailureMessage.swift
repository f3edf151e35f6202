import Courier
import Foundation

/// The line `courier` prints for a library failure: what failed, on which host (`host:port`),
/// and what to try, in the command line's words — never a type or case name, nor the
/// transport's own error.
struct FailureMessage {
    let error: CourierError
    /// The `--proxy` endpoint the connection went through, if any.
    let proxy: String?

    init(_ error: CourierError, proxy: String? = nil) {
        self.error = error
        self.proxy = proxy
    }

    /// The sentence, without the `courier: ` prefix, control characters escaped.
    var text: String {
        // A failure after retries says how many times the request was sent.
        PrintableText.escaping(error.attempts > 1 ? sentence + " (after \(error.attempts) attempts)" : sentence)
    }

    /// The server's `host:port` (the port the scheme implies when the URL has none), or "the
    /// server" when the error has no URL.
    var server: String {
        error.url.map(FailureMessage.server(of:)) ?? "the server"
    }

    /// The `host:port` of `url` (the port its scheme implies when it has none).
    static func server(of url: URL) -> String {
        guard let host = url.host, !host.isEmpty else { return "the server" }
        return endpoint(host: host, port: url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))
    }

    /// `host:port`, an IPv6 address in brackets.
    static func endpoint(host: String, port: Int) -> String {
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return (bare.contains(":") ? "[\(bare)]" : bare) + ":\(port)"
    }

    private var sentence: String {
        switch error.kind {
        case .connectionFailed: return connection
        case .tls: return tls
        case .timeout:
            if !error.requestMayHaveBeenSent {
                return "could not connect to \(proxy.map { "the proxy \($0)" } ?? server) in time (is the host up? raise --connect-timeout for a slow network)"
            }
            return "the request to \(server) timed out before the response was complete (raise --max-time for a slow endpoint)"
        case .proxy:
            // A proxy the environment names (http_proxy, https_proxy, all_proxy): the error
            // says which, and what is wrong with it.
            guard let proxy else { return "the proxy for \(server) failed: \(error.message)" }
            // A SOCKS5 proxy's refusal says which step failed, and with what reply.
            if error.proxy?.kind.isSOCKS == true { return error.message.prefix(1).lowercased() + error.message.dropFirst() }
            return "the proxy \(proxy) refused to open a tunnel to \(server), or refused its credentials (check the user and password of --proxy, and that the proxy allows CONNECT to that port)"
        case .malformedResponse:
            return "\(server) sent a response that breaks HTTP's rules (status line, header, chunk or length), so it cannot be read safely (check that the server speaks HTTP/1.1 on that port)"
        case .responseTooLarge:
            return "the body from \(server) is larger than the size limit (--max-filesize, or 32 MiB for a body held whole with --report, --cache or --durable); it was not kept"
        case .decompressionLimitExceeded:
            return "the compressed body from \(server) is corrupt or expands far past its size; it was refused as a possible zip bomb (leave out --compressed to get the bytes as sent)"
        case .unsupportedContentEncoding:
            return "\(server) sent the body in a content coding courier cannot decode (gzip, deflate, and br and zstd where the system's libbrotli and libzstd are installed); ask for another with -H 'Accept-Encoding: …'"
        case .tooManyRedirects:
            return "\(server) redirected more times than allowed (raise --max-redirects if the chain is legitimate)"
        case .redirectLoop:
            return "the redirects from \(server) lead back to a URL already visited: the server's redirects form a loop"
        case .insecureRedirect:
            return "\(server) redirected from https to plain http, which would send the request in clear text; courier refuses (use the https URL the server should have given)"
        case .validationFailed:
            guard let response = error.response else { return "\(server) sent a response that was refused" }
            return "\(server) answered \(response.status) \(response.reasonPhrase) for \(response.url.absoluteString)"
        case .authenticationFailed:
            if let response = error.response {
                return "\(server) refused the credentials of --user or --bearer (\(response.status) \(response.reasonPhrase)); check them"
            }
            return "\(server) asks for an authentication courier cannot give for this request (\(library))"
        case .cancelled:
            return "interrupted"
        case .invalidURL:
            // The library's advice, when it kept some after the `;`, already says what to write.
            let sentence = library
            return sentence.contains(";") ? sentence : "\(sentence) (give an absolute http or https URL, or a path with --base-url)"
        default:
            return library
        }
    }

    private var connection: String {
        let target = proxy.map { "the proxy \($0)" } ?? server
        switch error.connectionFailure {
        case .hostNotFound?:
            let name = proxy.map { "the proxy's name in \($0)" } ?? "host \(error.url?.host ?? "of the URL")"
            return "could not resolve \(name): no address was found for that name (check the spelling, and this machine's DNS and network)"
        case .refused?:
            return "could not connect to \(target): connection refused (is the \(proxy == nil ? "server" : "proxy") running on that port?)"
        case .unreachable?:
            return "could not connect to \(target): the host or its network cannot be reached (check the address and this machine's network)"
        case .emptyReply?:
            return "\(server) closed the connection without sending a response (empty reply; check that it speaks HTTP on that port, and the server's logs)"
        case .cutShort?:
            return "\(server) closed the connection before the body was complete (the transfer was cut short; try again)"
        case .reset?:
            return "the connection to \(server) was reset before the response was complete (try again; if it persists, check the server and any firewall between)"
        default:
            if !error.requestMayHaveBeenSent {
                return "could not connect to \(target) (check that it is running and reachable)"
            }
            return "the connection to \(server) failed before the response was complete (try again)"
        }
    }

    private var tls: String {
        // A proxy spoken to over TLS (https://) whose certificate failed: the proxy is named.
        let host = error.proxy.map { "the proxy \($0.host):\($0.port)" } ?? server
        switch error.tlsFailure {
        case .wrongHost?:
            return "the certificate of \(host) was issued for another name (use a URL with a name the certificate covers, or have the certificate fixed)"
        case .expired?:
            return "the certificate of \(host), or one of its issuers, has expired (the server must renew it)"
        case .notYetValid?:
            return "the certificate of \(host) is not valid yet (check this machine's clock)"
        case .selfSigned?:
            return "\(host) sent a self-signed certificate that is not trusted (if you expected it, trust it with --cacert FILE)"
        case .unknownAuthority?:
            return "the certificate of \(host) was not issued by a trusted authority (if you trust its issuer, give its certificate with --cacert FILE)"
        case .pinMismatch?:
            return "no certificate of \(host) matches --pin: its key changed or the connection is intercepted; nothing was sent (change the pin only if the change is expected)"
        case .clientCertificateRejected?:
            return "\(host) refused the client certificate, or required one and got none (check --cert and --key, or --p12, and that the server trusts their issuer)"
        case .unusableMaterial?:
            return "a certificate or key for \(host) could not be used (check the --cert, --key or --p12 file and its password)"
        case .unsupportedVersion?:
            return "\(host) and courier share no TLS version: the server's newest is older than the oldest courier accepts (TLS 1.2 unless --tls-min says otherwise; for a legacy server you trust, give --tls-min 1.1)"
        default:
            return "the TLS handshake with \(host) failed (check that the server speaks TLS on that port)"
        }
    }

    /// The library's own sentence, in lower case and without a closing period, cut before
    /// advice that names the library's API (a `Type.member`) rather than an option.
    var library: String {
        var message = error.message
        if let advice = message.range(of: #"; [^;]*\b[A-Z][A-Za-z]+\.[a-z][A-Za-z]*"#, options: .regularExpression) {
            message = String(message[..<advice.lowerBound])
        }
        while message.hasSuffix(".") { message.removeLast() }
        guard let first = message.first, first.isUppercase, message.dropFirst().first?.isLowercase == true else { return message }
        return first.lowercased() + message.dropFirst()
    }
}

extension ClientOptions {
    /// The `host:port` of `--proxy`, as failure messages name it.
    var proxyEndpoint: String? {
        guard let proxy, let url = URL(string: proxy), let host = url.host, !host.isEmpty else { return nil }
        return FailureMessage.endpoint(host: host, port: url.port ?? Proxy.defaultPort)
    }
}
