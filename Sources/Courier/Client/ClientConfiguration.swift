import Foundation
import Logging
import Tracing

/// Everything a ``CourierClient`` needs to know, as one value (MKNetworkHost and YTKNetworkConfig in
/// one place).
///
/// ```swift
/// var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com/v1")!)
/// configuration.defaultHeaders.add(name: "Accept", value: "application/json")
/// configuration.timeouts.total = .seconds(30)
/// ```
public struct ClientConfiguration: Sendable {
    /// The `User-Agent` sent unless you set one: `Courier/` and the library's version.
    public static let defaultUserAgent = "Courier/0.1.0"

    /// The default limit on a collected body: 32 MiB (``Limits/defaultMaximumBodySize``).
    public static let defaultMaximumBodySize = Limits.defaultMaximumBodySize

    /// The URL relative request paths are joined to.
    public var baseURL: URL?
    /// The URL used instead of ``baseURL`` by requests with ``CourierRequest/usesCDN`` set.
    public var cdnURL: URL?
    /// Headers added to every request that does not set them itself.
    public var defaultHeaders: Headers
    /// The body encoding of parameters for methods other than GET, HEAD and DELETE.
    public var defaultBodyEncoding: BodyEncoding
    /// Connect, read and total timeouts.
    public var timeouts: Timeouts
    /// The largest collected body, the requests in flight, the connections kept.
    public var limits: Limits
    /// How redirects are followed.
    public var redirectPolicy: RedirectPolicy
    /// Whether compressed bodies (gzip, deflate, br, zstd) are undone, and within which ratio.
    public var decompression: Decompression
    /// The logger; silent unless you pass one.
    public var logger: Logger
    /// The interceptors, outermost first.
    public var interceptors: [any Interceptor]
    /// The lifecycle observers.
    public var observers: [any RequestObserver]
    /// The tracer of Courier's spans (see <doc:InterceptorsAndLifecycle>): one per request,
    /// with one child per message sent. `nil`, the default, means the tracer bootstrapped with
    /// `InstrumentationSystem` when the client is created, or none while that is the no-op
    /// tracer.
    public var tracer: (any Tracer)? = nil
    /// The decoder used for `Decodable` responses unless a request names its own.
    public var jsonDecoder: JSONDecoder
    /// When failed requests are sent again; never, by default.
    public var retryPolicy: CourierRetryPolicy
    /// The clock retries wait on; tests pass one that does not really sleep.
    public var clock: any Clock<Duration>
    /// The credentials sent, each only to its own origin; none by default.
    public var authentication: Authentication
    /// The cookie jar: cookies that responses set are kept and sent back on later requests
    /// and redirect hops, by RFC 6265's rules. `nil`, the default, keeps no cookies.
    public var cookies: CookieJar?
    /// The HTTP proxy every request goes through, tunnelled with `CONNECT`; none by default.
    /// With a ``proxyEnvironment``, it takes the place of the proxies the environment names,
    /// and the hosts the environment's `no_proxy` lists are still reached directly (as curl
    /// does with `-x`).
    public var proxy: Proxy?
    /// The proxies the environment names (`http_proxy`, `https_proxy`, `all_proxy` and
    /// `no_proxy`, read as curl reads them: see ``ProxyEnvironment``), decided for each request
    /// and each redirect hop by its URL. `nil`, the default, reads no variable: a client goes
    /// through a proxy only when asked to. `.current` honours the process's environment.
    public var proxyEnvironment: ProxyEnvironment?
    /// Names of headers, besides ``Headers/alwaysRedacted``, whose values are secrets: they
    /// are redacted in every log line and observer's view, and removed when a redirect leaves
    /// the origin, like `Authorization`. Compared case-insensitively; a request adds its own
    /// with ``CourierRequest/sensitiveHeaders``.
    public var sensitiveHeaders: Set<String>
    /// Trusted roots, pins and client certificates; by default the system's roots with host
    /// name checks, no pins and no client certificate. Applied by the client's own transport;
    /// a transport you pass to ``CourierClient/init(configuration:transport:ownsTransport:)`` does its
    /// own TLS. See <doc:Security>.
    public var tls: TLSPolicy
    /// The HTTP cache; `nil`, the default, caches nothing. See <doc:Caching>.
    public var cache: CacheConfiguration?
    /// Whether concurrent identical GET and HEAD requests share one exchange; `true` by
    /// default. A request can opt out with ``CourierRequest/allowsCoalescing``.
    public var coalescesRequests: Bool
    /// Limits on each origin shared with other clients (other processes, other hosts), on top
    /// of ``limits``; `nil`, the default, for none. See ``OriginBudget``.
    public var originBudget: (any OriginBudget)?

    /// Creates a configuration.
    public init(baseURL: URL? = nil, cdnURL: URL? = nil) {
        self.baseURL = baseURL
        self.cdnURL = cdnURL
        self.defaultHeaders = ["User-Agent": ClientConfiguration.defaultUserAgent]
        self.defaultBodyEncoding = .form
        self.timeouts = Timeouts()
        self.limits = Limits()
        self.redirectPolicy = .default
        self.decompression = .enabled(maximumRatio: 100)
        self.logger = Logger(label: "courier", factory: { _ in SwiftLogNoOpLogHandler() })
        self.interceptors = []
        self.observers = []
        self.jsonDecoder = JSONDecoder()
        self.retryPolicy = .none
        self.clock = ContinuousClock()
        self.authentication = Authentication()
        self.cookies = nil
        self.proxy = nil
        self.proxyEnvironment = nil
        self.sensitiveHeaders = []
        self.tls = TLSPolicy()
        self.cache = nil
        self.coalescesRequests = true
        self.originBudget = nil
    }

    /// The transport settings this configuration implies.
    public var transportConfiguration: TransportConfiguration {
        var configuration = TransportConfiguration(
            connectTimeout: timeouts.connect,
            readTimeout: timeouts.read,
            decompression: decompression,
            maximumConnectionsPerHost: limits.maximumConnectionsPerHost,
            proxy: proxy
        )
        configuration.proxyEnvironment = proxyEnvironment
        configuration.minimumTLSVersion = tls.minimumVersion
        return configuration
    }
}

extension ClientConfiguration {
    /// The largest body collected; now ``Limits/maximumBodySize`` in ``limits``.
    @available(*, deprecated, renamed: "limits.maximumBodySize")
    public var maximumBodySize: Int {
        get { limits.maximumBodySize }
        set { limits.maximumBodySize = newValue }
    }
    /// The most requests in flight; now ``Limits/maximumConcurrentRequests`` in ``limits``.
    @available(*, deprecated, renamed: "limits.maximumConcurrentRequests")
    public var maximumConcurrentRequests: Int {
        get { limits.maximumConcurrentRequests }
        set { limits.maximumConcurrentRequests = newValue }
    }
    /// The most requests in flight per origin; now ``Limits/maximumConcurrentRequestsPerHost`` in ``limits``.
    @available(*, deprecated, renamed: "limits.maximumConcurrentRequestsPerHost")
    public var maximumConcurrentRequestsPerHost: Int {
        get { limits.maximumConcurrentRequestsPerHost }
        set { limits.maximumConcurrentRequestsPerHost = newValue }
    }
    /// Connections kept per host; now ``Limits/maximumConnectionsPerHost`` in ``limits``.
    @available(*, deprecated, renamed: "limits.maximumConnectionsPerHost")
    public var maximumConnectionsPerHost: Int {
        get { limits.maximumConnectionsPerHost }
        set { limits.maximumConnectionsPerHost = newValue }
    }
    /// The adaptive per-origin limit; now ``Limits/adaptiveConcurrency`` in ``limits``.
    @available(*, deprecated, renamed: "limits.adaptiveConcurrency")
    public var adaptiveConcurrency: AdaptiveConcurrency? {
        get { limits.adaptiveConcurrency }
        set { limits.adaptiveConcurrency = newValue }
    }
}

/// The timeouts of a client.
public struct Timeouts: Sendable, Hashable {
    /// How long to wait for a connection, TCP and TLS handshake together; 10 seconds by
    /// default. A request's total timeout, when shorter, ends the wait sooner.
    public var connect: Duration
    /// How long the server may stay silent once a request is sent, before its response starts
    /// and between the parts of its body; 60 seconds by default (see
    /// ``TransportConfiguration/readTimeout``).
    public var read: Duration?
    /// How long a whole request may take: every attempt, the waits for a free slot
    /// (``Limits``) and between retries, redirects, authentication challenges and a download's
    /// resumes; no limit by default. A retry whose wait would end past it is not made: the
    /// last outcome is delivered. A request's own ``CourierRequest/timeout`` takes precedence.
    public var total: Duration?

    /// Creates timeouts.
    public init(connect: Duration = .seconds(10), read: Duration? = .seconds(60), total: Duration? = nil) {
        self.connect = connect
        self.read = read
        self.total = total
    }
}
