import Courier

/// The exit statuses of `courier`, a documented contract (see README).
enum ExitStatus: Int32 {
    /// A response was delivered.
    case success = 0
    /// An unexpected failure.
    case failure = 1
    /// Invalid input: an unknown option, a bad URL, header, file or body, a number out of its
    /// range, a path of the wrong kind, a curl option Courier refuses, or a file `-J` would replace.
    case invalidInput = 2
    /// The connection could not be opened or broke.
    case connectionFailed = 3
    /// TLS failed.
    case tls = 4
    /// A timeout elapsed.
    case timeout = 5
    /// `--fail` or `--fail-with-body` was given and the status was 4xx or 5xx.
    case httpError = 6
    /// Too many redirects, a redirect loop, or a refused https → http redirect.
    case redirect = 7
    /// The server's response broke HTTP framing.
    case malformedResponse = 8
    /// The body exceeded the size or decompression limit.
    case tooLarge = 9
    /// A download failed its length or digest check, or the server could not continue it.
    case integrity = 10
    /// Interrupted by Ctrl-C; a download keeps its partial file for `--resume`.
    case interrupted = 130
    /// The server refused the credentials of `--user` or `--bearer`.
    case authenticationFailed = 11
    /// The proxy of `--proxy` refused its credentials or the tunnel.
    case proxy = 12
    /// The durable queue is full, its database cannot be used, or it has no record with the
    /// id given.
    case queue = 13
    /// `queue run` ended with records still waiting: `--deadline` passed, or the records left
    /// need credentials it was not given.
    case queueNotEmpty = 14

    /// The status of a failure of `kind`, the same in every command.
    init(_ kind: CourierError.Kind) {
        switch kind {
        case .invalidURL, .invalidHeader, .invalidMethod, .invalidBody, .invalidDestination, .cookieStorage, .invalidConfiguration:
            self = .invalidInput
        case .proxy: self = .proxy
        case .integrityCheckFailed, .resumeMismatch: self = .integrity
        case .connectionFailed: self = .connectionFailed
        case .tls: self = .tls
        case .timeout: self = .timeout
        case .tooManyRedirects, .redirectLoop, .insecureRedirect: self = .redirect
        case .malformedResponse, .unsupportedContentEncoding: self = .malformedResponse
        case .responseTooLarge, .decompressionLimitExceeded: self = .tooLarge
        case .authenticationFailed: self = .authenticationFailed
        case .queueFull, .queueStorage, .queueRecordNotFound: self = .queue
        // The commands' only validator is --fail's status check.
        case .validationFailed: self = .httpError
        // The commands' requests are cancelled only by Ctrl-C.
        case .cancelled: self = .interrupted
        default: self = .failure
        }
    }
}

/// A failure that ends the command with a status and one line on stderr.
struct CommandFailure: Error {
    var status: ExitStatus
    var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    init(_ error: CourierError) {
        self.init(ExitStatus(error.kind), error.description)
    }

    /// The failure any error a command ends with stands for: a `CommandFailure` as it is, a
    /// `CourierError` by its kind, a cancellation as an interruption, anything else as an
    /// unexpected failure.
    init(describing error: any Error) {
        switch error {
        case let failure as CommandFailure: self = failure
        case let error as CourierError: self.init(error)
        case is CancellationError: self.init(.interrupted, "interrupted")
        default: self.init(.failure, "\(error)")
        }
    }
}
