import Atomics
import Foundation

/// Sends requests: joins paths to the base URL, runs the interceptors, follows redirects
/// safely, validates and decodes responses.
///
/// A client owns connections and must be shut down; ``withClient(configuration:_:)`` does it
/// for you:
///
/// ```swift
/// try await CourierClient.withClient(configuration: .init(baseURL: URL(string: "https://api.example.com")!)) { client in
///     let user = try await client.send(CourierRequest<User>(path: "/users/1"))
/// }
/// ```
public final class CourierClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: ClientConfiguration
    let transport: any Transport
    let scheduler: Scheduler
    package let authenticator: Authenticator?
    let cache: HTTPCache?
    /// Courier's spans; `nil` when no tracer records them.
    let tracing: RequestTracing?
    /// The configuration's observers, and a ``MetricsObserver`` when a metrics backend was
    /// bootstrapped and the configuration has none.
    let observers: [any RequestObserver]
    let coalescer = Coalescer()
    let urls = URLMemo()
    private let ownsTransport: Bool
    /// Read by every request without a lock.
    private let isShutDown = ManagedAtomic(false)
    /// The configuration's first value outside its range, which every request fails with.
    private let configurationError: CourierError?

    /// Creates a client with the default transport, which it owns and shuts down in
    /// ``shutdown()``: AsyncHTTPClient (with a TLS configuration of the host's own for custom
    /// roots, client certificates and the TLS floor), and Courier's own verified connections
    /// for pinned https hosts (see ``ClientConfiguration/tls``); HTTP/2 or HTTP/1.1 by ALPN on
    /// both.
    public convenience init(configuration: ClientConfiguration = ClientConfiguration()) {
        let transport = RoutingTransport(
            configuration: configuration.transportConfiguration,
            policy: configuration.tls,
            standard: CourierAsyncHTTPClientTransport(configuration: configuration.transportConfiguration, logger: configuration.logger)
        )
        self.init(configuration: configuration, transport: transport, ownsTransport: true)
    }

    /// Creates a client on a transport you provide; ``shutdown()`` shuts it down when
    /// `ownsTransport` is `true`.
    public init(configuration: ClientConfiguration, transport: any Transport, ownsTransport: Bool = false) {
        self.configuration = configuration
        self.configurationError = configuration.rangeError()
        self.transport = transport
        self.ownsTransport = ownsTransport
        self.scheduler = Scheduler(
            globalLimit: configuration.limits.maximumConcurrentRequests,
            perHostLimit: configuration.limits.maximumConcurrentRequestsPerHost,
            adaptive: configuration.limits.adaptiveConcurrency
        )
        self.authenticator = Authenticator(configuration: configuration)
        self.cache = configuration.cache.map { HTTPCache(configuration: $0, logger: configuration.logger) }
        self.tracing = RequestTracing(configuration)
        self.observers = configuration.observers + MetricsObserver.bootstrapped(besides: configuration.observers)
    }

    /// How many requests wait for a slot and how many are in flight now.
    public var activity: Activity { scheduler.activity }

    /// Every change of ``activity``, starting with the current value; for a network activity
    /// indicator or a progress display.
    public func activityUpdates() -> AsyncStream<Activity> { scheduler.activityUpdates() }

    /// Runs `body` with a new client and shuts the client down afterwards, whether `body`
    /// returned or threw.
    public static func withClient<Result>(
        configuration: ClientConfiguration = ClientConfiguration(),
        _ body: (CourierClient) async throws -> Result
    ) async throws -> Result {
        try await CourierClient(configuration: configuration).run(body)
    }

    /// Runs `body` with a new client that sends through `transport`, and shuts the client and
    /// the transport down afterwards, whether `body` returned or threw.
    public static func withClient<Result>(
        configuration: ClientConfiguration = ClientConfiguration(),
        transport: any Transport,
        _ body: (CourierClient) async throws -> Result
    ) async throws -> Result {
        try await CourierClient(configuration: configuration, transport: transport, ownsTransport: true).run(body)
    }

    /// Runs `body` with this client, then shuts it down.
    private func run<Result>(_ body: (CourierClient) async throws -> Result) async throws -> Result {
        let client = self
        let result: Result
        do {
            result = try await body(client)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        return result
    }

    /// Closes the client's connections, once the cache's background refreshes have ended.
    /// Requests sent afterwards fail with ``CourierError/Kind/clientShutdown``. Calling it
    /// twice is harmless.
    ///
    /// A connection still being opened is waited for, up to the connect timeout (see
    /// ``Timeouts/connect``), even when the request that asked for it has already failed at
    /// its deadline: a server that accepts TCP and never finishes the TLS handshake can hold
    /// the shutdown that long.
    public func shutdown() async throws {
        guard isShutDown.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        await cache?.background.waitForAll()
        guard ownsTransport else { return }
        try await transport.shutdown()
    }

    /// Sends `request` and returns its decoded value.
    ///
    /// - Throws: ``CourierError`` for every failure of Courier's own; errors thrown by your
    ///   interceptors, validators or decoders pass through as they are.
    public func send<Value>(_ request: CourierRequest<Value>) async throws -> Value {
        try await perform(request, id: CourierRequestID(), state: nil).value!
    }

    /// Sends `request` and returns the validated response without decoding it.
    public func response<Value>(for request: CourierRequest<Value>) async throws -> CourierResponse {
        try await perform(request, id: CourierRequestID(), state: nil, decodes: false).response
    }

    /// Sends a fully built request as it is: no base URL, default headers or parameters are
    /// applied and no validator runs, but interceptors, redirects, wire checks and lifecycle
    /// hooks do. The escape hatch for requests that ``CourierRequest`` cannot describe.
    public func send(_ request: CourierHTTPRequest) async throws -> CourierResponse {
        var request = request
        request.sensitiveHeaders.formUnion(configuration.sensitiveHeaders.map { $0.lowercased() })
        return try await perform(id: request.id, state: nil, validators: []) { () throws(CourierError) in
            request
        } finish: {
            $0
        }
    }

    /// Sends the request an endpoint describes and returns its decoded value.
    public func send<E: CourierEndpoint>(_ endpoint: E) async throws -> E.Value {
        try await send(endpoint.makeRequest())
    }

    func checkNotShutDown() throws(CourierError) {
        if isShutDown.load(ordering: .acquiring) {
            throw CourierError(.clientShutdown, "The client was shut down; create a new one to send requests.")
        }
        if let configurationError { throw configurationError }
    }
}
