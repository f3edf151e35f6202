import Foundation

/// Connection settings of one request, each over the client's: a field left `nil` uses the
/// client's value (``ClientConfiguration/timeouts``, ``ClientConfiguration/decompression``,
/// ``ClientConfiguration/proxy`` and ``ClientConfiguration/tls``).
///
/// ```swift
/// var request = CourierRequest<Data>(path: "/events")
/// request.connection.readTimeout = .unlimited   // a stream that may stay silent for long
/// request.connection.proxy = .direct            // not through the client's proxy
/// ```
///
/// The client's own transport honours every field on every HTTP version, and never lets a
/// connection made under one set of settings carry a request made under another: a request
/// with a proxy, trust roots, pins or a client certificate of its own gets connections of its
/// own. A value out of range fails the request with ``CourierError/Kind/invalidConfiguration``
/// before anything is sent. A transport you provide reads ``CourierHTTPRequest/connection``
/// and refuses, with a typed error, what it cannot honour.
public struct ConnectionOverrides: Sendable, Hashable {
    /// How long the server may stay silent once the request is sent.
    public enum ReadTimeout: Sendable, Hashable {
        /// No limit: the request waits for the server as long as its total timeout allows.
        case unlimited
        /// Silence for this long fails the exchange with ``CourierError/Kind/timeout``.
        case after(Duration)
    }

    /// Whether the request goes through a proxy.
    public enum ProxyChoice: Sendable, Hashable {
        /// Straight to the origin, whatever the client's proxy.
        case direct
        /// Through this proxy (see ``Proxy``).
        case through(Proxy)
    }

    /// How long to wait for a connection, TCP and TLS handshake together; `nil` uses
    /// ``Timeouts/connect``.
    public var connectTimeout: Duration? {
        get { settings?.value.connectTimeout }
        set { change { $0.connectTimeout = newValue } }
    }
    /// How long the server may stay silent; `nil` uses ``Timeouts/read``.
    public var readTimeout: ReadTimeout? {
        get { settings?.value.readTimeout }
        set { change { $0.readTimeout = newValue } }
    }
    /// Whether and how far compressed bodies are inflated; `nil` uses
    /// ``ClientConfiguration/decompression``.
    public var decompression: Decompression? {
        get { settings?.value.decompression }
        set { change { $0.decompression = newValue } }
    }
    /// The proxy; `nil` uses ``ClientConfiguration/proxy``.
    public var proxy: ProxyChoice? {
        get { settings?.value.proxy }
        set { change { $0.proxy = newValue } }
    }
    /// Trusted roots, pins, client certificates and the oldest TLS version, as a whole; `nil`
    /// uses ``ClientConfiguration/tls``.
    public var tls: TLSPolicy? {
        get { settings?.value.tls }
        set { change { $0.tls = newValue } }
    }

    /// The fields, when any is set. Every request's overrides are copied, compared (in its
    /// coalescing key) and checked at each step of its road, and most requests set none: a
    /// box shared by copies makes each of those one reference, or none.
    private var settings: CopyOnWrite<Settings>?

    private struct Settings: Hashable {
        var connectTimeout: Duration?
        var readTimeout: ReadTimeout?
        var decompression: Decompression?
        var proxy: ProxyChoice?
        var tls: TLSPolicy?

        var isEmpty: Bool {
            connectTimeout == nil && readTimeout == nil && decompression == nil && proxy == nil && tls == nil
        }
    }

    /// Changes the fields with `body`; the box goes when no field is left set, so that
    /// ``isEmpty`` is whether there is one.
    private mutating func change(_ body: (inout Settings) -> Void) {
        if settings == nil {
            var fresh = Settings()
            body(&fresh)
            if !fresh.isEmpty { settings = CopyOnWrite(fresh) }
            return
        }
        let box = CopyOnWrite.unique(&settings!)
        body(&box.value)
        if box.value.isEmpty { settings = nil }
    }

    /// Creates settings that set nothing: every field uses the client's. (Every request starts
    /// with these, so they are made without looking at any field.)
    public init() {
        settings = nil
    }

    /// Creates settings; every field left `nil` uses the client's.
    public init(
        connectTimeout: Duration? = nil,
        readTimeout: ReadTimeout? = nil,
        decompression: Decompression? = nil,
        proxy: ProxyChoice? = nil,
        tls: TLSPolicy? = nil
    ) {
        let given = Settings(connectTimeout: connectTimeout, readTimeout: readTimeout, decompression: decompression, proxy: proxy, tls: tls)
        settings = given.isEmpty ? nil : CopyOnWrite(given)
    }

    /// Whether every field uses the client's value.
    public var isEmpty: Bool { settings == nil }

    /// Whether both set the same fields to the same values.
    public static func == (lhs: ConnectionOverrides, rhs: ConnectionOverrides) -> Bool {
        switch (lhs.settings, rhs.settings) {
        case (nil, nil): return true
        case (let left?, let right?): return left === right || left.value == right.value
        default: return false
        }
    }

    /// Hashes the fields that are set.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(settings?.value)
    }

    /// The first field outside its range, as the error the request fails with.
    func rangeError() -> CourierError? {
        // Most requests set none: they pay one comparison per field on the hot path.
        guard !isEmpty else { return nil }
        if case .after(let read)? = readTimeout, let error = ConfigurationRanges.timeoutError("The request's connection.readTimeout", read) {
            return error
        }
        if case .through(let proxy)? = proxy, let error = ConfigurationRanges.proxyError("The request's connection.proxy", proxy) {
            return error
        }
        return ConfigurationRanges.timeoutError("The request's connection.connectTimeout", connectTimeout)
            ?? decompression.flatMap { ConfigurationRanges.decompressionError("The request's connection.decompression", $0) }
    }
}

extension TransportConfiguration {
    /// These settings for one exchange with `url`: `overrides` applied, field by field, and
    /// the proxy decided for that URL (see ``proxy(for:)``), so that ``proxy`` is the one the
    /// exchange goes through and ``proxyEnvironment`` is `nil`. Each redirect hop decides again.
    ///
    /// - Throws: ``CourierError/Kind/proxy`` when the environment names a proxy for `url` that
    ///   cannot be used.
    func applying(_ overrides: ConnectionOverrides, to url: URL) throws(CourierError) -> TransportConfiguration {
        // Most requests set nothing and most clients read no environment: two comparisons.
        var applied = overrides.isEmpty ? self : applying(overrides)
        if applied.proxyEnvironment != nil {
            applied.proxy = try applied.proxy(for: url)
            applied.proxyEnvironment = nil
        }
        return applied
    }

    /// These settings with `overrides` applied, field by field. A request's own proxy choice
    /// (direct, or a proxy) replaces the environment's.
    private func applying(_ overrides: ConnectionOverrides) -> TransportConfiguration {
        var applied = self
        if let connect = overrides.connectTimeout { applied.connectTimeout = connect }
        switch overrides.readTimeout {
        case nil: break
        case .unlimited?: applied.readTimeout = nil
        case .after(let read)?: applied.readTimeout = read
        }
        if let decompression = overrides.decompression { applied.decompression = decompression }
        switch overrides.proxy {
        case nil: break
        case .direct?:
            applied.proxy = nil
            applied.proxyEnvironment = nil
        case .through(let proxy)?:
            applied.proxy = proxy
            applied.proxyEnvironment = nil
        }
        if let tls = overrides.tls { applied.minimumTLSVersion = tls.minimumVersion }
        return applied
    }
}
