import Foundation

/// The one error type Courier throws.
///
/// Match on ``kind`` to decide what to do; read ``description`` to learn what went wrong and
/// what to try next. New kinds may be added in any release without breaking your code, because
/// ``Kind`` is a struct rather than an enum:
///
/// ```swift
/// do {
///     _ = try await client.send(request)
/// } catch let error as CourierError where error.kind == .timeout {
///     // retry later
/// }
/// ```
public struct CourierError: Error, Sendable, CustomStringConvertible {
    /// The category of a ``CourierError``.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A URL could not be built or parsed.
        public static let invalidURL = Kind("invalidURL")
        /// A header name or value holds a character that may not appear on the wire.
        public static let invalidHeader = Kind("invalidHeader")
        /// The method is not a valid HTTP token.
        public static let invalidMethod = Kind("invalidMethod")
        /// The request body could not be produced (encoding failed, file unreadable…).
        public static let invalidBody = Kind("invalidBody")
        /// The connection could not be opened, or was closed before the response ended.
        public static let connectionFailed = Kind("connectionFailed")
        /// The TLS handshake or certificate verification failed; ``CourierError/tlsFailure``
        /// says why.
        public static let tls = Kind("tls")
        /// A connect, read or total timeout elapsed.
        public static let timeout = Kind("timeout")
        /// The request was cancelled.
        public static let cancelled = Kind("cancelled")
        /// The server's response broke HTTP's framing rules.
        public static let malformedResponse = Kind("malformedResponse")
        /// The response body was larger than the configured maximum.
        public static let responseTooLarge = Kind("responseTooLarge")
        /// The compressed body expanded past the configured ratio.
        public static let decompressionLimitExceeded = Kind("decompressionLimitExceeded")
        /// More redirects than the policy allows.
        public static let tooManyRedirects = Kind("tooManyRedirects")
        /// A redirect led back to a URL already visited.
        public static let redirectLoop = Kind("redirectLoop")
        /// A redirect from https to http was refused.
        public static let insecureRedirect = Kind("insecureRedirect")
        /// A validator rejected the response; ``CourierError/response`` holds it.
        public static let validationFailed = Kind("validationFailed")
        /// The body could not be decoded into the requested type.
        public static let decodingFailed = Kind("decodingFailed")
        /// An illegal request lifecycle transition was attempted.
        public static let invalidState = Kind("invalidState")
        /// The client was shut down.
        public static let clientShutdown = Kind("clientShutdown")
        /// The response is encoded with a content coding that cannot be decoded. Courier's own
        /// transports no longer raise it: a body in a coding they cannot undo is delivered as
        /// received, with its `Content-Encoding`. A custom transport may still.
        public static let unsupportedContentEncoding = Kind("unsupportedContentEncoding")
        /// The transport cannot stream a response body. Courier no longer raises it itself: a
        /// transport that only collects bodies hands them over as one piece.
        public static let streamingUnsupported = Kind("streamingUnsupported")
        /// A download's destination is unusable: an unsafe or missing file name, a file that
        /// exists and may not be overwritten, a symbolic link, a folder that cannot be written.
        public static let invalidDestination = Kind("invalidDestination")
        /// A resumed download's answer did not continue the partial file (a `Content-Range`
        /// that starts elsewhere, or a different total length).
        public static let resumeMismatch = Kind("resumeMismatch")
        /// A downloaded body failed its length or digest check; the file was not kept.
        public static let integrityCheckFailed = Kind("integrityCheckFailed")
        /// The server refused the credentials too often (three times for a user name and
        /// password; after one refresh for a bearer token), or asked for a kind of Digest
        /// answer the request cannot give. ``CourierError/response`` holds the last 401.
        public static let authenticationFailed = Kind("authenticationFailed")
        /// A cookie jar's file could not be read or written, or is not a cookie file.
        public static let cookieStorage = Kind("cookieStorage")
        /// The proxy could not be reached, refused its credentials (407), or refused to open a
        /// tunnel to the origin.
        public static let proxy = Kind("proxy")
        /// A cache operation was asked of a client without a cache, or the cache's store
        /// failed to read or write.
        public static let cacheUnavailable = Kind("cacheUnavailable")
        /// A cache store could not read or write its files (a folder that cannot be created, a
        /// full or read-only disk); the message names the file and the system's reason.
        public static let cacheStorageFailed = Kind("cacheStorageFailed")
        /// The durable queue (`CourierQueue`) holds as many records as its configuration's
        /// `maximumRecords` allows; wait for deliveries or drop records.
        public static let queueFull = Kind("queueFull")
        /// The durable queue's database could not be opened, read or written: a file that is
        /// not a database, a corrupted one, a full disk, missing permissions.
        public static let queueStorage = Kind("queueStorage")
        /// No record in the durable queue has the identifier given.
        public static let queueRecordNotFound = Kind("queueRecordNotFound")
        /// A durable request needs credentials (an `Authorization` header or another header
        /// removed before it was written to disk) that the delivering queue was not given: no
        /// `QueueConfiguration.credentials` supplied them and the client has none for the
        /// request's origin. The record waits; it is not sent without them.
        public static let missingCredentials = Kind("missingCredentials")
        /// A failure the transport reported that fits no other kind.
        public static let transport = Kind("transport")
        /// A value of the client's configuration or of the request is outside its range (a
        /// timeout that is not positive, a negative body limit, no concurrency at all); the
        /// message names the value and the range. Nothing was sent.
        public static let invalidConfiguration = Kind("invalidConfiguration")

        /// The kind's name, e.g. `timeout`.
        public var description: String { name }
    }

    /// What category of failure this is.
    public let kind: Kind
    /// A sentence that says what went wrong and what to do. Control and bidirectional
    /// characters in it (from a reason phrase, a header, a file name…) are escaped as
    /// ``PrintableText`` describes, so it is safe to print.
    public let message: String
    /// The URL the request was for, when known.
    public var url: URL?
    /// The response, for errors raised after one arrived (validation, decoding, redirects).
    public var response: CourierResponse?
    /// The status code of ``response``, when one arrived: `404` for a request refused as not
    /// found, `503` for one whose retries all met an unavailable server.
    public var status: Int? { response?.status }
    /// How many times the client sent the request before it failed: `1` without retries,
    /// more when the retry policy sent it again; `0` when it failed before anything was sent
    /// (a refused configuration, a cancellation while waiting for a slot) or did not come from
    /// a client's request.
    public var attempts: Int = 0
    /// The lower-level error, when there is one.
    public var underlyingError: (any Error)?
    /// Why a TLS connection failed, for errors of kind ``Kind/tls``.
    public var tlsFailure: TLSFailure?
    /// What happened to the connection, for errors of kind ``Kind/connectionFailed`` when the
    /// transport could tell: a name that did not resolve, a refused port, a reset, a reply
    /// that was empty or cut short.
    public var connectionFailure: ConnectionFailure?
    /// Whether any byte of the request may have reached the server. `false` only when the
    /// connection could not be opened, so that even a POST is safe to send again.
    public var requestMayHaveBeenSent: Bool = true
    /// Whether some of the response (its head at least) had arrived when the exchange failed:
    /// a request that failed so is never sent again as a stale connection's replay.
    package var responseStarted: Bool = false
    /// The proxy the exchange went to when the failure is the proxy's (it could not be
    /// reached, or refused the tunnel or its credentials), whichever setting named it.
    package var proxy: Proxy?

    /// Creates an error; interceptors and custom transports may throw these too.
    public init(
        _ kind: Kind,
        _ message: String,
        url: URL? = nil,
        response: CourierResponse? = nil,
        underlyingError: (any Error)? = nil
    ) {
        self.kind = kind
        self.message = PrintableText.escaping(message)
        self.url = url
        self.response = response
        self.underlyingError = underlyingError
    }

    /// The kind, the message, the URL and the underlying error on one line, safe to print:
    /// control and bidirectional characters are escaped as ``PrintableText`` describes.
    public var description: String {
        let reason = tlsFailure?.description ?? connectionFailure?.description
        var text = "\(kind)\(reason.map { " (\($0))" } ?? ""): \(message)"
        if attempts > 1 { text += " (after \(attempts) attempts)" }
        if let url { text += " [\(url.absoluteString)]" }
        if let underlyingError { text += " (underlying: \(underlyingError))" }
        return PrintableText.escaping(text)
    }

    /// Returns a copy with ``url`` set when it was not known yet.
    func with(url: URL?) -> CourierError {
        var copy = self
        if copy.url == nil { copy.url = url }
        return copy
    }
}
