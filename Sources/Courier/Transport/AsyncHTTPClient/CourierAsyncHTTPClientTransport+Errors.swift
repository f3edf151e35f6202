import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

extension CourierAsyncHTTPClientTransport {
    /// ``map(_:url:timeout:responseStarted:)``, with connection failures blamed on `proxy` when
    /// the connection goes to one.
    func mapped(_ error: any Error, url: URL, timeout: Duration?, proxy: Proxy?, responseStarted: Bool = false) -> CourierError {
        Self.blaming(CourierAsyncHTTPClientTransport.map(error, url: url, timeout: timeout, responseStarted: responseStarted), on: proxy, url: url, underlyingError: error)
    }

    /// `mapped` as the failure of `proxy` when the connection went to one and it is the
    /// proxy's: a tunnel or credentials it refused, or a connection to it that could not be
    /// opened in time. Every road that opens connections through a proxy tells it so.
    static func blaming(_ mapped: CourierError, on proxy: Proxy?, url: URL, underlyingError: any Error) -> CourierError {
        guard let proxy else { return mapped }
        var mapped = mapped
        if mapped.kind == .proxy { mapped.proxy = proxy }
        guard !mapped.requestMayHaveBeenSent, mapped.kind == .connectionFailed || mapped.kind == .timeout else { return mapped }
        var blamed = CourierError(
            mapped.kind,
            "Could not connect to the proxy \(proxy.host):\(proxy.port); check that the proxy (ClientConfiguration.proxy, the one ClientConfiguration.proxyEnvironment names, or the request's connection.proxy) is a running HTTP proxy.",
            url: url, underlyingError: underlyingError
        )
        blamed.requestMayHaveBeenSent = false
        blamed.connectionFailure = mapped.connectionFailure
        blamed.proxy = proxy
        return blamed
    }

    /// Translates AsyncHTTPClient, NIO and TLS errors into ``CourierError``, with the
    /// ``ConnectionFailure`` of a connection that failed when the error tells it;
    /// `responseStarted` says whether the response's head had arrived, which tells a reply
    /// cut short from an empty one.
    static func map(_ error: any Error, url: URL, timeout: Duration?, responseStarted: Bool = false) -> CourierError {
        var mapped = translate(error, url: url, timeout: timeout)
        if responseStarted { mapped.responseStarted = true }
        if mapped.kind == .connectionFailed, mapped.connectionFailure == nil {
            mapped.connectionFailure = ConnectionFailure.of(error, responseStarted: responseStarted)
        }
        return mapped
    }

    private static func translate(_ error: any Error, url: URL, timeout: Duration?) -> CourierError {
        func make(_ kind: CourierError.Kind, _ message: String) -> CourierError {
            CourierError(kind, message, url: url, underlyingError: error)
        }
        func unsent(_ kind: CourierError.Kind, _ message: String) -> CourierError {
            var error = make(kind, message)
            error.requestMayHaveBeenSent = false
            return error
        }
        switch error {
        case let error as CourierError:
            return error.with(url: url)
        case is CancellationError:
            return make(.cancelled, "The request was cancelled.")
        case let error as HTTPClientError:
            switch error {
            case .cancelled:
                return make(.cancelled, "The request was cancelled.")
            case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return unsent(.timeout, "Could not connect to \(url.host ?? "the host") in time; check that the server is up, or raise the connect timeout.")
            case .readTimeout, .writeTimeout:
                return make(.timeout, "The server stopped sending or receiving data for longer than the read timeout; raise it for slow endpoints.")
            case .deadlineExceeded:
                return make(.timeout, "The request did not finish within its total timeout\(timeout.map { " of \($0)" } ?? ""); raise CourierRequest.timeout for slow endpoints.")
            case .remoteConnectionClosed:
                return make(.connectionFailed, "The server closed the connection before the response was complete; retry, or check the server's logs.")
            case .bodyLengthMismatch, .identityCodingIncorrectlyPresent, .contentLengthMissing:
                return make(.malformedResponse, "The server's response broke HTTP/1.1 framing (\(error.shortDescription)); it cannot be read safely.")
            case .invalidURL, .emptyHost, .emptyScheme:
                return make(.invalidURL, "The URL \(url.absoluteString) cannot be sent (\(error.shortDescription)); check its scheme and host.")
            case .proxyAuthenticationRequired:
                return unsent(.proxy, "The proxy refused its credentials (407 Proxy Authentication Required); check the user name and password of ClientConfiguration.proxy (or of the proxy the environment names).")
            case .invalidProxyResponse:
                return unsent(.proxy, "The proxy refused to open a tunnel to \(url.host ?? "the host"):\(url.port.map(String.init) ?? "its default port"); check that it allows CONNECT to that port.")
            case .httpProxyHandshakeTimeout:
                return unsent(.proxy, "The proxy did not answer the tunnel request in time; check that ClientConfiguration.proxy names a running HTTP proxy.")
            case .alreadyShutdown:
                return make(.clientShutdown, "The client was shut down; create a new one.")
            default:
                if error.shortDescription == HTTPClientError.unsupportedScheme("").shortDescription {
                    return make(.invalidURL, "The URL \(url.absoluteString) uses a scheme Courier cannot send; use http or https.")
                }
                return make(.transport, "The transport failed: \(error.shortDescription).")
            }
        case let error as InvalidStatusCode:
            return make(.malformedResponse, "The server answered with status code \(error.code), outside 100–999; the response cannot be read. Check the server.")
        case let error as HTTPParserError where error == .invalidEOFState:
            return make(.connectionFailed, "The server closed the connection before the response was complete; retry, or check the server's logs.")
        case let error as HTTPParserError:
            return make(.malformedResponse, "The server's response broke HTTP/1.1 framing (\(error)); it cannot be read safely.")
        case is NIOHTTPDecompression.DecompressionError:
            return make(.decompressionLimitExceeded, "The compressed body expanded past the allowed ratio, or was corrupt; it was refused as a possible zip bomb. Raise TransportConfiguration.decompression's ratio if it is legitimate.")
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            let reason = TLSFailure.classify(error)
            var failure = make(.tls, reason.message(host: url.host ?? "the host"))
            failure.tlsFailure = reason
            return failure
        case is NIOConnectionError:
            return unsent(.connectionFailed, "Could not connect to \(url.host ?? "the host"):\(url.port.map(String.init) ?? "default port"); check that the server is running and reachable.")
        case let error as ChannelError:
            if case .connectTimeout = error {
                return unsent(.timeout, "Could not connect to \(url.host ?? "the host") in time; check that the server is up, or raise the connect timeout.")
            }
            return make(.connectionFailed, "The connection failed: \(error).")
        case let error as IOError where [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL].contains(error.errnoCode):
            return unsent(.connectionFailed, "Could not connect to \(url.host ?? "the host"):\(url.port.map(String.init) ?? "default port") (\(error)); check that the server is running and reachable.")
        case is IOError:
            return make(.connectionFailed, "The connection failed: \(error); check that the server is running and reachable.")
        default:
            return make(.transport, "The transport failed: \(error).")
        }
    }
}
