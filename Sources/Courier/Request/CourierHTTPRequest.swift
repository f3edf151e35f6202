import Foundation

/// A request resolved to a URL, as interceptors and transports see it.
///
/// The client builds one from a ``CourierRequest`` (joining the path to the base URL, placing the
/// parameters, adding default headers); interceptors may change any field.
public struct CourierHTTPRequest: Sendable {
    /// The method.
    public var method: CourierHTTPMethod {
        get { fields.method }
        _modify { yield &fields.method }
    }
    /// The absolute URL.
    public var url: URL {
        get { fields.url }
        _modify { yield &fields.url }
    }
    /// The header fields, as they will be sent (`Host` and `Content-Length` are added by the
    /// transport).
    public var headers: Headers {
        get { fields.headers }
        _modify { yield &fields.headers }
    }
    /// The body.
    public var body: CourierRequestBody? {
        get { fields.body }
        _modify { yield &fields.body }
    }
    /// The time allowed for the whole call: retries and their waits, redirects, challenges and
    /// resumes included.
    public var timeout: Duration? {
        get { fields.timeout }
        _modify { yield &fields.timeout }
    }
    /// Connection settings of this request over the client's (see ``ConnectionOverrides``).
    public var connection: ConnectionOverrides {
        get { fields.connection }
        _modify { yield &fields.connection }
    }
    /// The scheduling priority.
    public var priority: RequestPriority {
        get { fields.priority }
        _modify { yield &fields.priority }
    }
    /// How the request uses the HTTP cache.
    public var cachePolicy: CachePolicy {
        get { fields.cachePolicy }
        _modify { yield &fields.cachePolicy }
    }
    /// The application's cache rules for this request, over the client's.
    public var appCachePolicy: AppCachePolicy? {
        get { fields.appCachePolicy }
        _modify { yield &fields.appCachePolicy }
    }
    /// Lower-cased names of headers treated as credentials, in addition to `Authorization`,
    /// `Cookie` and `Proxy-Authorization`.
    public var sensitiveHeaders: Set<String> {
        get { fields.sensitiveHeaders }
        _modify { yield &fields.sensitiveHeaders }
    }
    /// The largest response body collected.
    public var maximumBodySize: Int {
        get { fields.maximumBodySize }
        _modify { yield &fields.maximumBodySize }
    }
    /// The request's tag.
    public var tag: Int? {
        get { fields.tag }
        _modify { yield &fields.tag }
    }
    /// The request's free-form information.
    public var userInfo: [String: String] {
        get { fields.userInfo }
        _modify { yield &fields.userInfo }
    }
    /// Identifies the request in event hooks and logs.
    public var id: CourierRequestID { fields.id }
    /// Whether the request may share one exchange with identical requests in flight (see
    /// ``ClientConfiguration/coalescesRequests``); `true` by default.
    public var allowsCoalescing = true
    /// Whether the client collects the response body whole, up to ``maximumBodySize``: a
    /// transport may then collect it itself, the cheaper way, and hand it over as one piece.
    package var collectsResponseBody = false
    /// When the whole call must have ended: set once, from ``timeout``, when the call starts, so
    /// that every attempt, wait, redirect and resume shares it; `nil` before, or for no limit.
    package var callDeadline: ContinuousClock.Instant? {
        get { storedCallDeadline.instant }
        set { storedCallDeadline = newValue.map(ClockReading.init) }
    }
    /// When the next hop must have ended: the call's deadline, or, when an interceptor
    /// shortened ``timeout`` since the call started, that timeout from now.
    var hopDeadline: ClockReading? {
        guard let timeout else { return storedCallDeadline }
        let fromNow = ClockReading.now + timeout
        guard let deadline = storedCallDeadline, deadline < fromNow else { return fromNow }
        return deadline
    }

    /// Sets ``callDeadline`` from ``timeout``, for a call that started at `start`.
    mutating func startCall(at start: ClockReading) {
        storedCallDeadline = timeout.map { start + $0 }
    }
    /// ``callDeadline``, kept in a form of known size, so that a request is copied without the
    /// runtime's help (see ``ClockReading``).
    private var storedCallDeadline: ClockReading?
    /// Whether the client writes the response body to a file (``CourierClient/download(_:to:options:)``):
    /// a transport may then carry the exchange as a download of its own.
    package var isFileDownload = false
    /// Told of the body bytes received so far (and of the whole length, when known) by a
    /// transport that receives a file download where the client cannot count it, such as a
    /// download task writing a file of its own.
    package var reportsReceived: (@Sendable (_ received: Int64, _ expected: Int64?) -> Void)?
    /// The origin the request loop computed for ``url`` when it admitted the exchange, kept
    /// with the URL it was computed from, so that the transport does not compute it again.
    private var admittedOrigin: (url: URL, origin: String)?
    /// The redirect rules for this request; `nil` uses the client's.
    public var redirectPolicy: RedirectPolicy?
    /// The credentials of this request alone (from ``CourierRequest/credential``), used instead of
    /// the client's; `nil` uses the client's.
    var authenticator: Authenticator?
    /// Whether the client may add the credentials it has for the request's origin
    /// (``ClientConfiguration/authentication``) and answer its challenges; `false` for a
    /// durable request that was enqueued without credentials.
    package var usesClientCredentials = true
    /// The upgrade this request asks for, if any: it then goes over a connection of its own
    /// that leaves HTTP on a `101` (see ``ConnectionUpgrade``).
    package var upgrade: ConnectionUpgrade?

    /// The stored fields, shared by copies of this value until one of them changes.
    private struct Fields {
        var method: CourierHTTPMethod
        var url: URL
        var headers: Headers
        var body: CourierRequestBody?
        var timeout: Duration?
        var priority: RequestPriority
        var cachePolicy: CachePolicy
        var appCachePolicy: AppCachePolicy?
        var sensitiveHeaders: Set<String>
        var maximumBodySize: Int
        var tag: Int?
        var userInfo: [String: String]
        var id: CourierRequestID
        var connection = ConnectionOverrides()
    }

    private var storage: CopyOnWrite<Fields>

    /// Scheme, host and effective port of ``url`` (see ``RedirectStateMachine/origin(of:)``),
    /// computed once per exchange: the value kept by ``rememberOrigin()`` while the URL is the
    /// one it was computed from.
    package var origin: String {
        if let admittedOrigin, admittedOrigin.url == url { return admittedOrigin.origin }
        return RedirectStateMachine.origin(of: url)
    }

    /// Computes ``origin`` for the current URL and keeps it; returns it.
    package mutating func rememberOrigin() -> String {
        let origin = self.origin
        admittedOrigin = (url, origin)
        return origin
    }

    private var fields: Fields {
        get { storage.value }
        _modify { yield &CopyOnWrite.unique(&storage).value }
    }

    /// Creates a request; the client does this for you from a ``CourierRequest``.
    public init(
        method: CourierHTTPMethod,
        url: URL,
        headers: Headers = Headers(),
        body: CourierRequestBody? = nil,
        timeout: Duration? = nil,
        priority: RequestPriority = .default,
        cachePolicy: CachePolicy = .default,
        appCachePolicy: AppCachePolicy? = nil,
        sensitiveHeaders: Set<String> = [],
        maximumBodySize: Int = ClientConfiguration.defaultMaximumBodySize,
        tag: Int? = nil,
        userInfo: [String: String] = [:],
        id: CourierRequestID = CourierRequestID()
    ) {
        storage = CopyOnWrite(
            Fields(
                method: method,
                url: url,
                headers: headers,
                body: body,
                timeout: timeout,
                priority: priority,
                cachePolicy: cachePolicy,
                appCachePolicy: appCachePolicy,
                sensitiveHeaders: sensitiveHeaders,
                maximumBodySize: maximumBodySize,
                tag: tag,
                userInfo: userInfo,
                id: id
            )
        )
    }

    /// Header names that always count as credentials.
    public static let credentialHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    /// Whether `name` is a credential header for this request.
    public func isSensitive(_ name: String) -> Bool {
        let lower = name.lowercased()
        return CourierHTTPRequest.credentialHeaders.contains(lower) || sensitiveHeaders.contains(lower)
    }

    /// Appends query items to the URL, percent-encoding them by Courier's rule.
    public mutating func appendQueryItems(_ items: [URLQueryItem]) throws(CourierError) {
        guard !items.isEmpty else { return }
        url = try URLBuilder.url(path: url.absoluteString, base: nil, queryPairs: items.map { ($0.name, $0.value) })
    }

    /// The headers with credential values (``Headers/alwaysRedacted`` and
    /// ``sensitiveHeaders``) replaced by `<redacted>`, for logs.
    public var redactedHeaders: Headers {
        headers.redacted(alsoHiding: sensitiveHeaders)
    }
}

/// A unique identifier for one request.
public struct CourierRequestID: Hashable, Sendable, CustomStringConvertible {
    private let value: UInt64
    private static let counter = IDCounter()

    /// A new identifier, unique within the process.
    public init() { value = CourierRequestID.counter.next() }

    public var description: String { "req-\(value)" }
}
