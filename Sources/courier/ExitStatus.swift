import Courier
import Foundation

/// The exit statuses of `courier`, a documented contract (see CLI.md): curl's number for every
/// case curl has, and numbers from 110 up, which curl does not use, for Courier's own.
enum ExitStatus: Int32 {
    /// A response was delivered (any status, unless `--fail`).
    case success = 0
    /// The URL's scheme is not http or https, or a redirect went from https to http (curl:
    /// unsupported protocol).
    case unsupportedProtocol = 1
    /// A usage error: an unknown option, a bad header, body or value, a number out of its
    /// range, a curl option Courier refuses, or a file `-J` would replace.
    case invalidInput = 2
    /// The URL is malformed (curl: URL malformed).
    case malformedURL = 3
    /// The proxy's name did not resolve (curl: could not resolve proxy).
    case proxyNotFound = 5
    /// The host's name did not resolve (curl: could not resolve host).
    case hostNotFound = 6
    /// The connection could not be opened: refused or unreachable (curl: failed to connect).
    case couldNotConnect = 7
    /// The response broke HTTP's framing (curl: weird server reply).
    case malformedResponse = 8
    /// The connection closed before the body ended (curl: partial file).
    case partialBody = 18
    /// `--fail` or `--fail-with-body` and a 4xx or 5xx (curl: HTTP error).
    case httpError = 22
    /// A file or folder to write could not be written (curl: write error).
    case writeError = 23
    /// A file to send or read could not be read (curl: read error).
    case readError = 26
    /// A timeout elapsed (curl: operation timed out).
    case timeout = 28
    /// The server could not continue a partial download (curl: range error).
    case rangeError = 33
    /// The TLS handshake failed (curl: SSL connect error).
    case tlsHandshake = 35
    /// Too many redirects, or a redirect loop (curl: too many redirects).
    case tooManyRedirects = 47
    /// The server closed the connection without a response (curl: empty reply).
    case emptyReply = 52
    /// The connection was reset or failed while the response came, or the proxy refused the
    /// tunnel or its credentials (curl: failure receiving network data).
    case receiveFailed = 56
    /// A client certificate or key could not be used (curl: local certificate problem).
    case localCertificate = 58
    /// The server's certificate could not be verified (curl: peer certificate cannot be
    /// authenticated).
    case peerCertificate = 60
    /// The body's content coding is unknown, corrupt, or expands too far (curl: bad content
    /// encoding).
    case contentEncoding = 61
    /// The body exceeded `--max-filesize` or a size limit (curl: maximum file size exceeded).
    case fileTooLarge = 63
    /// A `--cacert` file could not be used (curl: problem with the CA certificate file).
    case caCertificateFile = 77
    /// No certificate of the server matches `--pin` (curl: pinned public key mismatch).
    case pinMismatch = 90
    /// The server's authentication challenge could not be answered (curl: authentication
    /// function error).
    case authenticationError = 94
    /// The server required a client certificate, or refused the one shown (curl: SSL client
    /// certificate required).
    case clientCertificate = 98
    /// A download failed its digest or length check (Courier's own).
    case integrity = 110
    /// The durable queue is full, its database cannot be used, it has no record with the id
    /// given, or it gave up on a request (Courier's own).
    case queue = 111
    /// `queue run` ended with records still waiting (Courier's own).
    case queueNotEmpty = 112
    /// A failure that fits no other row (Courier's own).
    case unexpected = 113
    /// Interrupted by Ctrl-C; a download keeps its partial file for `--resume`.
    case interrupted = 130

    /// The status of `error`, the same in every command: the one place a library failure
    /// becomes an exit status. A connection failure is told apart by its
    /// ``ConnectionFailure`` (through a proxy, a name that does not resolve is the proxy's),
    /// a TLS failure by its ``TLSFailure``.
    init(_ error: CourierError, throughProxy: Bool = false) {
        switch error.kind {
        case .connectionFailed: self = ExitStatus(connection: error, throughProxy: throughProxy)
        case .tls: self = ExitStatus(tls: error.tlsFailure)
        case .invalidURL:
            let scheme = error.url?.scheme?.lowercased()
            self = scheme == nil || scheme == "http" || scheme == "https" ? .malformedURL : .unsupportedProtocol
        case .invalidHeader, .invalidMethod, .cookieStorage, .invalidConfiguration: self = .invalidInput
        case .invalidBody: self = .readError
        case .invalidDestination, .cacheStorageFailed: self = .writeError
        case .proxy: self = .receiveFailed
        case .integrityCheckFailed: self = .integrity
        case .resumeMismatch: self = .rangeError
        case .timeout: self = .timeout
        case .tooManyRedirects, .redirectLoop: self = .tooManyRedirects
        case .insecureRedirect: self = .unsupportedProtocol
        case .malformedResponse: self = .malformedResponse
        case .unsupportedContentEncoding, .decompressionLimitExceeded: self = .contentEncoding
        case .responseTooLarge: self = .fileTooLarge
        // With its final 401, refused credentials are an HTTP error (`fetch` prints the 401
        // and exits 0 unless --fail, as curl does); without one, the challenge could not be
        // answered.
        case .authenticationFailed: self = error.response == nil ? .authenticationError : .httpError
        case .queueFull, .queueStorage, .queueRecordNotFound: self = .queue
        case .missingCredentials: self = .queueNotEmpty
        // The commands' only validator is --fail's status check.
        case .validationFailed: self = .httpError
        // The commands' requests are cancelled only by Ctrl-C.
        case .cancelled: self = .interrupted
        default: self = .unexpected
        }
    }

    private init(connection error: CourierError, throughProxy: Bool) {
        switch error.connectionFailure {
        case .hostNotFound?: self = throughProxy ? .proxyNotFound : .hostNotFound
        case .refused?, .unreachable?: self = .couldNotConnect
        case .emptyReply?: self = .emptyReply
        case .cutShort?: self = .partialBody
        case .reset?: self = .receiveFailed
        default: self = error.requestMayHaveBeenSent ? .receiveFailed : .couldNotConnect
        }
    }

    private init(tls reason: TLSFailure?) {
        switch reason {
        case .pinMismatch?: self = .pinMismatch
        case .wrongHost?, .expired?, .notYetValid?, .selfSigned?, .unknownAuthority?: self = .peerCertificate
        case .clientCertificateRejected?: self = .clientCertificate
        case .unusableMaterial?: self = .localCertificate
        default: self = .tlsHandshake
        }
    }
}
