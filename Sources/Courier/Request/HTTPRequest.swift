import Foundation

/// A request resolved to a URL, as interceptors and transports see it.
///
/// The client builds one from a ``Request`` (joining the path to the base URL, placing the
/// parameters, adding default headers); interceptors may change any field.
public struct HTTPRequest: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The absolute URL.
    public var url: URL
    /// The header fields, as they will be sent (`Host` and `Content-Length` are added by the
    /// transport).
    public var headers: Headers
    /// The body.
    public var body: RequestBody?
    /// The total time allowed, redirects included.
    public var timeout: Duration?
    /// The scheduling priority.
    public var priority: RequestPriority
    /// How the request uses the HTTP cache.
    public var cachePolicy: CachePolicy
    /// The application's cache rules for this request, over the client's.
    public var appCachePolicy: AppCachePolicy?
    /// Lower-cased names of headers treated as credentials, in addition to `Authorization`,
    /// `Cookie` and `Proxy-Authorization`.
    public var sensitiveHeaders: Set<String>
    /// The largest response body collected.
    public var maximumBodySize: Int
    /// The request's tag.
    public var tag: Int?
    /// The request's free-form information.
    public var userInfo: [String: String]
    /// Identifies the request in event hooks and logs.
    public let id: RequestID
    /// Whether the request may share one exchange with identical requests in flight (see
    /// ``ClientConfiguration/coalescesRequests``); `true` by default.
    public var allowsCoalescing = true

    /// Creates a request; the client does this for you from a ``Request``.
    public init(
        method: HTTPMethod,
        url: URL,
        headers: Headers = Headers(),
        body: RequestBody? = nil,
        timeout: Duration? = nil,
        priority: RequestPriority = .default,
        cachePolicy: CachePolicy = .default,
        appCachePolicy: AppCachePolicy? = nil,
        sensitiveHeaders: Set<String> = [],
        maximumBodySize: Int = ClientConfiguration.defaultMaximumBodySize,
        tag: Int? = nil,
        userInfo: [String: String] = [:],
        id: RequestID = RequestID()
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.priority = priority
        self.cachePolicy = cachePolicy
        self.appCachePolicy = appCachePolicy
        self.sensitiveHeaders = sensitiveHeaders
        self.maximumBodySize = maximumBodySize
        self.tag = tag
        self.userInfo = userInfo
        self.id = id
    }

    /// Header names that always count as credentials.
    public static let credentialHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    /// Whether `name` is a credential header for this request.
    public func isSensitive(_ name: String) -> Bool {
        let lower = name.lowercased()
        return HTTPRequest.credentialHeaders.contains(lower) || sensitiveHeaders.contains(lower)
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
public struct RequestID: Hashable, Sendable, CustomStringConvertible {
    private let value: UInt64
    private static let counter = IDCounter()

    /// A new identifier, unique within the process.
    public init() { value = RequestID.counter.next() }

    public var description: String { "req-\(value)" }
}
