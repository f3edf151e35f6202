import Foundation

/// Connection-level settings of the default transport.
public struct TransportConfiguration: Sendable, Hashable {
    /// How long to wait for a connection, TCP and TLS handshake together.
    public var connectTimeout: Duration
    /// How long the server may stay silent once the request is sent: before the response
    /// starts, and between its parts. It is checked a tenth of it apart (at least 5 ms apart,
    /// at most 1 s), so a silent exchange fails up to that much later. While a streamed body's
    /// reader holds a part it has not taken, nothing more is read and the clock stops.
    public var readTimeout: Duration?
    /// Whether and how far compressed bodies are inflated.
    public var decompression: Decompression
    /// Connections kept per host for HTTP/1.1.
    public var maximumConnectionsPerHost: Int
    /// How long an idle connection is kept for reuse.
    public var idleConnectionTimeout: Duration
    /// Whether a failed connection attempt is tried again until the connect timeout; off by
    /// default, so that a refused connection fails at once.
    public var retriesFailedConnections: Bool
    /// The HTTP proxy every connection is tunnelled through; none by default. With a
    /// ``proxyEnvironment``, the hosts its `no_proxy` lists are still reached directly.
    public var proxy: Proxy?
    /// The proxies the environment names, decided for each exchange by its URL; `nil`, the
    /// default, reads no variable. See ``ClientConfiguration/proxyEnvironment``.
    public var proxyEnvironment: ProxyEnvironment?
    /// The oldest TLS version accepted; TLS 1.2 by default (see ``MinimumTLSVersion``).
    public var minimumTLSVersion: MinimumTLSVersion = .tls12

    /// Creates settings.
    public init(
        connectTimeout: Duration = .seconds(10),
        readTimeout: Duration? = .seconds(60),
        decompression: Decompression = .enabled(maximumRatio: 100),
        maximumConnectionsPerHost: Int = 8,
        idleConnectionTimeout: Duration = .seconds(60),
        retriesFailedConnections: Bool = false,
        proxy: Proxy? = nil
    ) {
        self.proxy = proxy
        self.retriesFailedConnections = retriesFailedConnections
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.decompression = decompression
        self.maximumConnectionsPerHost = maximumConnectionsPerHost
        self.idleConnectionTimeout = idleConnectionTimeout
    }
}

extension TransportConfiguration {
    /// The proxy an exchange with `url` goes through, `nil` for none: ``proxy`` when it is
    /// set, unless the environment's `no_proxy` lists the host (as curl does with `-x`); else
    /// the one the environment names for the URL's scheme.
    ///
    /// - Throws: ``CourierError/Kind/proxy`` when that is a proxy that cannot be used.
    func proxy(for url: URL) throws(CourierError) -> Proxy? {
        guard let proxy else { return try proxyEnvironment?.proxy(for: url) }
        if let proxyEnvironment, proxyEnvironment.bypasses(url) { return nil }
        return proxy
    }
}

/// Whether compressed response bodies are undone.
///
/// gzip and deflate are undone by zlib; br and zstd by the system's libbrotli and libzstd,
/// which Courier loads when first needed (Debian's `libbrotli1` and `libzstd1`): on a machine
/// without one, its coding is neither asked for nor undone, and a body in it is delivered as
/// received, `Content-Encoding` intact.
public enum Decompression: Sendable, Hashable {
    /// Bodies are delivered as sent; no `Accept-Encoding` is added.
    case disabled
    /// Unless the request sets its own, `Accept-Encoding: gzip, deflate, br, zstd` is sent (the
    /// codings this machine can undo), and compressed bodies are undone, every layer; a body
    /// that would grow more than `maximumRatio` times its compressed size fails with
    /// ``CourierError/Kind/decompressionLimitExceeded`` (a defence against zip bombs), as
    /// does a zstd body that needs a window of more than 8 MiB (RFC 9659).
    case enabled(maximumRatio: Int)
}

extension Duration {
    /// The duration in whole nanoseconds, saturating.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return product.addingReportingOverflow(attoseconds / 1_000_000_000).overflow ? .max : product + attoseconds / 1_000_000_000
    }
}
