import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CourierURLSessionTransport {
    /// Translates what URLSession reports into ``CourierError``, with the
    /// ``ConnectionFailure`` of a connection that failed when the code tells it;
    /// `headArrived` tells a reply cut short from an empty one.
    static func map(_ error: any Error, url: URL, headArrived: Bool) -> CourierError {
        var mapped = translate(error, url: url, headArrived: headArrived)
        if headArrived { mapped.responseStarted = true }
        return mapped
    }

    private static func translate(_ error: any Error, url: URL, headArrived: Bool) -> CourierError {
        if let error = error as? CourierError { return error }
        let host = url.host ?? "the host"
        let port = url.port.map(String.init) ?? "its default port"
        func make(_ kind: CourierError.Kind, _ message: String) -> CourierError {
            CourierError(kind, message, url: url, underlyingError: error)
        }
        func unsent(_ kind: CourierError.Kind, _ message: String, _ reason: ConnectionFailure? = nil) -> CourierError {
            var failure = make(kind, message)
            failure.requestMayHaveBeenSent = false
            failure.connectionFailure = reason
            return failure
        }
        guard let code = (error as? URLError)?.code else {
            return make(.transport, "URLSession failed: \(error).")
        }
        if let described = describedFailure(error, url: url, headArrived: headArrived) { return described }
        switch code {
        case .cancelled:
            return make(.cancelled, "The request was cancelled.")
        case .timedOut:
            return make(.timeout, "The server stopped sending or receiving data for longer than the read timeout; raise it for slow endpoints.")
        case .cannotFindHost, .dnsLookupFailed:
            return unsent(.connectionFailed, "The host name \(host) did not resolve; check its spelling and the network's DNS.", .hostNotFound)
        case .cannotConnectToHost:
            return unsent(.connectionFailed, "Could not connect to \(host):\(port); check that the server is running and reachable.", .refused)
        case .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed:
            return unsent(.connectionFailed, "Could not reach \(host): the network is unavailable.", .unreachable)
        case .networkConnectionLost:
            var failure = make(.connectionFailed, "The server closed the connection before the response was complete; retry, or check the server's logs.")
            failure.connectionFailure = headArrived ? .cutShort : .emptyReply
            return failure
        case .badServerResponse, .cannotDecodeRawData, .cannotDecodeContentData, .cannotParseResponse:
            return make(.malformedResponse, "The server's response could not be read (\(code.rawValue)); it broke HTTP's rules or its content coding.")
        case .unsupportedURL, .badURL:
            // The URL was checked before it was handed over: what URLSession could not take
            // is the response (libcurl reports a status line it cannot parse this way).
            return make(.malformedResponse, "The server's response could not be read: its status line or framing broke HTTP's rules.")
        case .dataLengthExceedsMaximum:
            return make(.responseTooLarge, "The response body is larger than URLSession accepts.")
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted, .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired:
            var failure = unsent(.tls, "The TLS connection to \(host) failed (\(code.rawValue)): its certificate was not trusted, or no protocol version or cipher was agreed.")
            failure.tlsFailure = tlsFailure(code)
            return failure
        default:
            return make(.transport, "URLSession failed with code \(code.rawValue): \(error.localizedDescription)")
        }
    }

    /// The status of a response head that is not a final response Courier can read: outside
    /// 100–999, or an interim 1xx that FoundationNetworking hands over as if it were final.
    static func refusal(ofStatus status: Int, url: URL) -> CourierError? {
        guard !(200..<1000).contains(status), status != 101 else { return nil }
        let message =
            (100..<200).contains(status)
            ? "URLSession handed over the interim response \(status) as the final one; the final response cannot be read through this transport."
            : "The server answered with status code \(status), outside 100–999; the response cannot be read. Check the server."
        return CourierError(.malformedResponse, message, url: url)
    }

    /// The failure libcurl describes in words where FoundationNetworking gives no code of its
    /// own (`NSURLErrorUnknown`): a body cut short, a reply that never came, a TLS failure.
    private static func describedFailure(_ error: any Error, url: URL, headArrived: Bool) -> CourierError? {
        let nsError = error as NSError
        let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError
        let text = [nsError.userInfo[NSLocalizedDescriptionKey] as? String, underlying?.userInfo[NSLocalizedDescriptionKey] as? String]
            .compactMap { $0?.lowercased() }.joined(separator: " ")
        guard !text.isEmpty else { return nil }
        let host = url.host ?? "the host"
        func connection(_ reason: ConnectionFailure, _ message: String) -> CourierError {
            var failure = CourierError(.connectionFailed, message, url: url, underlyingError: error)
            failure.connectionFailure = reason
            return failure
        }
        if text.contains("transfer closed with") || text.contains("partial file") {
            return connection(.cutShort, "The server closed the connection before the response body was complete; retry, or check the server's logs.")
        }
        if text.contains("empty reply from server") {
            return connection(headArrived ? .cutShort : .emptyReply, "The server closed the connection before any of the response; retry, or check the server's logs.")
        }
        if text.contains("connection reset") {
            return connection(.reset, "The connection was reset before the response was complete; retry, or check the server's logs.")
        }
        // The version refusals first: OpenSSL names the certificate too when it refuses TLS 1.1.
        let reasons: [(String, TLSFailure)] = [
            ("unsupported protocol", .unsupportedVersion), ("protocol version", .unsupportedVersion),
            ("legacy sigalg", .unsupportedVersion), ("wrong version number", .unsupportedVersion),
            ("self-signed certificate", .selfSigned), ("self signed certificate", .selfSigned),
            ("unable to get local issuer", .unknownAuthority), ("unknown ca", .unknownAuthority),
            ("certificate has expired", .expired), ("certificate is not yet valid", .notYetValid),
            ("no alternative certificate subject name", .wrongHost), ("does not match target host", .wrongHost),
        ]
        let reason = reasons.first { text.contains($0.0) }?.1
        guard reason != nil || text.contains("ssl") || text.contains("tls") || text.contains("certificate") else { return nil }
        var failure = CourierError(.tls, (reason ?? .handshakeFailed).message(host: host), url: url, underlyingError: error)
        failure.tlsFailure = reason ?? .handshakeFailed
        failure.requestMayHaveBeenSent = false
        return failure
    }

    private static func tlsFailure(_ code: URLError.Code) -> TLSFailure {
        switch code {
        case .serverCertificateHasBadDate: return .expired
        case .serverCertificateNotYetValid: return .notYetValid
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot: return .unknownAuthority
        case .clientCertificateRejected, .clientCertificateRequired: return .clientCertificateRejected
        default: return .handshakeFailed
        }
    }
}
