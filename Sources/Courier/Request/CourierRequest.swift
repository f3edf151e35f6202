import Foundation

/// A request, as a value, together with the type its response decodes to.
///
/// ```swift
/// struct User: Decodable, Sendable { let id: Int; let name: String }
///
/// var request = CourierRequest<User>(path: "/users/1")
/// request.headers.add(name: "X-Trace", value: "1")
/// let user = try await client.send(request)
/// ```
///
/// `Value` decides what ``CourierClient/send(_:)-(CourierRequest<Value>)`` returns: a `Decodable` type is decoded from JSON
/// (with the client's decoder unless the request names one), `Data` returns the body, `String`
/// the body as text, ``CourierResponse`` the whole response and `Void` nothing.
public struct CourierRequest<Value: Sendable>: Sendable {
    /// The method.
    public var method: CourierHTTPMethod
    /// A path joined to the client's base URL, or an absolute URL (see the joining rule in
    /// <doc:URLsAndParameters>).
    public var path: String
    /// Join the path to the client's CDN URL instead of its base URL.
    public var usesCDN: Bool = false
    /// Query items, appended in order after any query in the path.
    public var query: [URLQueryItem] = []
    /// Named parameters; where they go is decided by ``parameterEncoding``.
    public var parameters: CourierParameters?
    /// Where ``parameters`` go; `.automatic` puts them in the query for GET, HEAD and DELETE
    /// and in the body otherwise.
    public var parameterEncoding: ParameterEncoding = .automatic
    /// Header fields; they take precedence over the client's default headers.
    public var headers: Headers = Headers()
    /// The body. Setting both a body and body parameters is an error.
    public var body: CourierRequestBody?
    /// The time allowed for the whole call (retries and their waits, redirects and resumes
    /// included; see ``Timeouts/total``); `nil` uses the client's.
    public var timeout: Duration?
    /// Connection settings of this request over the client's: connect and read timeouts,
    /// decompression, proxy and TLS (see ``ConnectionOverrides``); none by default.
    public var connection = ConnectionOverrides()
    /// The scheduling priority.
    public var priority: RequestPriority = .default
    /// How the request uses the HTTP cache.
    public var cachePolicy: CachePolicy = .default
    /// The application's cache rules for this request; they override the client's
    /// ``CacheConfiguration/policy`` field by field.
    public var appCachePolicy: AppCachePolicy?
    /// The validators run on the response; by default only a 2xx status is accepted.
    public var validators: [ResponseValidator] = [.statusCode(200..<300)]
    /// Names of extra headers to treat as credentials: removed on cross-origin redirects and
    /// redacted in logs, like `Authorization`.
    public var sensitiveHeaders: Set<String> = []
    /// The largest body collected for this request; `nil` uses the client's limit.
    public var maximumBodySize: Int?
    /// When this request is sent again after a failure; `nil` uses the client's policy.
    public var retryPolicy: CourierRetryPolicy?
    /// A credential for this request alone, sent to the origin of its URL (and used to answer
    /// that origin's challenges) instead of the client's ``ClientConfiguration/authentication``;
    /// `nil` uses the client's. The cross-origin rules hold: once a redirect leaves the
    /// origin, nothing is added.
    public var credential: Credential?
    /// How this request's redirects are followed; `nil` uses the client's
    /// ``ClientConfiguration/redirectPolicy``. The cross-origin rules hold whatever the policy.
    public var redirectPolicy: RedirectPolicy?
    /// A number you choose to tell requests apart (YTKRequest's `tag`).
    public var tag: Int?
    /// Free-form information carried to interceptors and event hooks.
    public var userInfo: [String: String] = [:]
    /// Whether this request may share one exchange with identical GET or HEAD requests in
    /// flight at the same time, when ``ClientConfiguration/coalescesRequests`` is on; `true`
    /// by default.
    public var allowsCoalescing = true
    /// Called as the body is sent, with the bytes the transport has taken so far and the
    /// body's length; throttled to about every 100 ms or 1 %, and always called with the last
    /// value. When a redirect or a retry sends the body again, the count starts again from
    /// zero. Calls come one at a time from the task that sends the body: keep them short.
    public var uploadProgress: (@Sendable (TransferProgress) -> Void)?

    let decode: @Sendable (CourierResponse, JSONDecoder) throws -> Value

    /// Creates a request whose value is produced by `decode`.
    public init(
        method: CourierHTTPMethod = .get,
        path: String,
        decode: @escaping @Sendable (CourierResponse, JSONDecoder) throws -> Value
    ) {
        self.method = method
        self.path = path
        self.decode = decode
    }

    /// Returns the same request with the response decoded differently.
    public func map<Other: Sendable>(_ transform: @escaping @Sendable (CourierResponse, JSONDecoder) throws -> Other) -> CourierRequest<Other> {
        var other = CourierRequest<Other>(method: method, path: path, decode: transform)
        other.usesCDN = usesCDN
        other.query = query
        other.parameters = parameters
        other.parameterEncoding = parameterEncoding
        other.headers = headers
        other.body = body
        other.timeout = timeout
        other.connection = connection
        other.priority = priority
        other.cachePolicy = cachePolicy
        other.appCachePolicy = appCachePolicy
        other.validators = validators
        other.sensitiveHeaders = sensitiveHeaders
        other.maximumBodySize = maximumBodySize
        other.retryPolicy = retryPolicy
        other.redirectPolicy = redirectPolicy
        other.credential = credential
        other.tag = tag
        other.userInfo = userInfo
        other.allowsCoalescing = allowsCoalescing
        other.uploadProgress = uploadProgress
        return other
    }
}

extension CourierRequest where Value: Decodable {
    /// A request whose response body is decoded as `Value`: JSON for most types, the raw body
    /// for `Data`, and the text for `String`.
    ///
    /// - Parameters:
    ///   - method: the method; GET by default.
    ///   - path: a path joined to the base URL, or an absolute URL.
    ///   - body: the body, if any.
    ///   - decoder: the JSON decoder; `nil` uses ``ClientConfiguration/jsonDecoder``.
    public init(method: CourierHTTPMethod = .get, path: String, body: CourierRequestBody? = nil, decoder: JSONDecoder? = nil) {
        self.init(method: method, path: path) { response, clientDecoder in
            if Value.self == Data.self { return response.body as! Value }
            if Value.self == String.self { return response.text() as! Value }
            return try response.decode(Value.self, using: decoder ?? clientDecoder)
        }
        self.body = body
    }
}

extension CourierRequest where Value == CourierResponse {
    /// A request that returns the whole ``CourierResponse``.
    public init(method: CourierHTTPMethod = .get, path: String, body: CourierRequestBody? = nil) {
        self.init(method: method, path: path) { response, _ in response }
        self.body = body
    }
}

extension CourierRequest where Value == Void {
    /// A request whose body is not needed.
    public init(method: CourierHTTPMethod = .get, path: String, body: CourierRequestBody? = nil) {
        self.init(method: method, path: path) { _, _ in () }
        self.body = body
    }
}
