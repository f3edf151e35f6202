import Foundation
import NIOSSL

/// The transport a ``CourierClient`` makes for itself, under each request's TLS policy (its
/// ``ConnectionOverrides/tls``, else the client's). ``ChannelTransport``, Courier's own
/// connections, carries every plain http request; https hosts with pins, which AsyncHTTPClient
/// cannot check inside the handshake; every request through a proxy (AsyncHTTPClient cannot
/// give a SOCKS5 proxy credentials nor speak TLS to a proxy, and it opens tunnels with a
/// `CONNECT` whose `Host` field lacks the port its target names); and upgrades (a WebSocket's,
/// say), which AsyncHTTPClient cannot hand over. AsyncHTTPClient carries the other https
/// requests, with a TLS configuration of their own for hosts whose settings are not the
/// defaults (custom roots, a client certificate).
///
/// Either way the settings are part of the connection key (AsyncHTTPClient keys its pool by a
/// request's TLS configuration; ``ChannelTransport`` by origin and settings), and either way
/// the connection offers HTTP/2 and HTTP/1.1 by ALPN: no setting changes the protocol a server
/// would otherwise get.
final class RoutingTransport: Transport {
    private let standard: CourierAsyncHTTPClientTransport
    private let secured: ChannelTransport
    private let policy: TLSPolicy
    private let configurations = HostTLSConfigurations()

    init(configuration: TransportConfiguration, policy: TLSPolicy, standard: CourierAsyncHTTPClientTransport) {
        self.standard = standard
        // One read rule for both: the same watchdogs hold every exchange to its read timeout.
        self.secured = ChannelTransport(configuration: configuration, watchdogs: standard.watchdogs)
        self.policy = policy
    }

    func send(_ request: CourierHTTPRequest, deadline: ContinuousClock.Instant?) async throws -> CourierResponse {
        switch try route(for: request) {
        case .channels(let settings, let configuration, let proxySettings):
            return try await secured.send(request, settings: settings, proxySettings: proxySettings, configuration: configuration, deadline: deadline)
        case .standard(let settings, let tls):
            do {
                return try await standard.send(request, deadline: deadline.map(ClockReading.init), tls: tls)
            } catch let error as CourierError where error.kind == .tls {
                throw await explain(error, request: request, settings: settings)
            }
        }
    }

    nonisolated(nonsending) func stream<Result: Sendable>(
        _ request: CourierHTTPRequest,
        deadline: ContinuousClock.Instant?,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        try await stream(request, deadline: deadline.map(ClockReading.init), admission: nil, body: body)
    }

    /// Sends `request` once `admission`, if any, holds its scheduler slot: either road is
    /// handed the admission, and starts the exchange when the slot is granted.
    nonisolated(nonsending) func stream<Result: Sendable>(
        _ request: CourierHTTPRequest,
        deadline: ClockReading?,
        admission: Admission?,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        switch try route(for: request) {
        case .channels(let settings, let configuration, let proxySettings):
            return try await secured.stream(
                request, settings: settings, proxySettings: proxySettings, configuration: configuration, deadline: deadline?.instant,
                admission: admission, body: body
            )
        case .standard(let settings, let tls):
            do {
                return try await standard.stream(request, deadline: deadline, tls: tls, admission: admission, body: body)
            } catch let error as CourierError where error.kind == .tls {
                throw await explain(error, request: request, settings: settings)
            }
        }
    }

    func shutdown() async throws {
        await secured.shutdown()
        try await standard.shutdown()
    }

    /// Where a request goes.
    private enum Route {
        /// AsyncHTTPClient, with the host's TLS configuration when it has settings of its own.
        case standard(HostTLSSettings?, TLSConfiguration?)
        /// Courier's own verified connections, under the host's TLS settings (`nil` for a
        /// plain http origin), the request's transport configuration, and the TLS settings of
        /// its proxy's host for a proxy spoken to over TLS.
        case channels(HostTLSSettings?, TransportConfiguration, HostTLSSettings?)
    }

    /// The route of `request`, under its own TLS policy or else the client's; both go through
    /// the request's proxy, if any.
    private func route(for request: CourierHTTPRequest) throws(CourierError) -> Route {
        // The client's policy is passed as it is, not copied, on every request without one.
        if let own = request.connection.tls { return try route(for: request, under: own) }
        return try route(for: request, under: policy)
    }

    /// The road of `request` under `policy`, the request's own TLS policy or the client's.
    private func route(for request: CourierHTTPRequest, under policy: borrowing TLSPolicy) throws(CourierError) -> Route {
        let configuration = standard.configuration
        // Only a request that may have a proxy, or that upgrades, has its settings applied here.
        var applied: TransportConfiguration?
        let upgrades = request.upgrade != nil
        if upgrades || request.connection.proxy != nil || configuration.proxy != nil || configuration.proxyEnvironment != nil {
            let own = try configuration.applying(request.connection, to: request.url)
            applied = own
            // AsyncHTTPClient speaks to HTTP proxies only in plain text, without SOCKS, opens
            // tunnels with a Host field that lacks the port, and closes a connection that
            // switches protocols.
            if upgrades || own.proxy != nil {
                let minimum = own.minimumTLSVersion
                return .channels(
                    try settings(for: request.url, under: policy, minimum: minimum), own,
                    try own.proxy.flatMap { proxy throws(CourierError) in
                        proxy.kind == .https ? try settings(forHost: proxy.host, under: policy, minimum: minimum) : nil
                    }
                )
            }
        }
        switch try route(for: request.url, under: policy) {
        case .pinned(let settings):
            if let applied { return .channels(settings, applied, nil) }
            return .channels(settings, try configuration.applying(request.connection, to: request.url), nil)
        case .standard(let settings, let tls):
            // Plain http goes over Courier's own connections, whose exchanges cost less than
            // AsyncHTTPClient's.
            guard settings == nil, request.url.scheme?.lowercased() == "http" else { return .standard(settings, tls) }
            if let applied { return .channels(nil, applied, nil) }
            return .channels(nil, try configuration.applying(request.connection, to: request.url), nil)
        }
    }

    /// The TLS settings of a request on the client's own connections because of its proxy:
    /// the host's own, or the defaults (the system's roots, the minimum version) for an https
    /// URL; `nil` for http.
    private func settings(for url: URL, under policy: TLSPolicy, minimum: MinimumTLSVersion) throws(CourierError) -> HostTLSSettings? {
        guard url.scheme?.lowercased() == "https", let host = url.host else { return nil }
        return try settings(forHost: host, under: policy, minimum: minimum)
    }

    /// The TLS settings `policy` gives `host` (its roots, pins and client certificate), or the
    /// defaults.
    private func settings(forHost host: String, under policy: TLSPolicy, minimum: MinimumTLSVersion) throws(CourierError) -> HostTLSSettings {
        policy.settings(for: host, at: Date(), standardMinimum: minimum)
            ?? HostTLSSettings(trustRoots: .system, pins: nil, identity: nil, minimumVersion: minimum)
    }

    /// Where a URL goes under a TLS policy, proxies aside.
    private enum PolicyRoute {
        case standard(HostTLSSettings?, TLSConfiguration?)
        case pinned(HostTLSSettings)
    }

    /// The route of `url` under `policy`.
    private func route(for url: URL, under policy: TLSPolicy) throws(CourierError) -> PolicyRoute {
        let standardMinimum = standard.configuration.minimumTLSVersion
        guard !policy.isDefault || policy.minimumVersion != standardMinimum, url.scheme?.lowercased() == "https",
            let host = url.host, let settings = policy.settings(for: host, at: Date(), standardMinimum: standardMinimum)
        else { return .standard(nil, nil) }
        guard settings.pins != nil else { return .standard(settings, try configurations.configuration(for: settings)) }
        return .pinned(settings)
    }

    /// `error` with the reason a certificate failed BoringSSL's verification, which says only
    /// that it failed. The reason is found by verifying, under the same settings, the
    /// chain the server presents to a second connection; that connection sends nothing, and
    /// only explains a failure that has already happened.
    private func explain(_ error: CourierError, request: CourierHTTPRequest, settings: HostTLSSettings?) async -> CourierError {
        let url = request.url
        guard error.tlsFailure == .handshakeFailed, let underlying = error.underlyingError,
            TLSFailure.isVerificationFailure(underlying), let host = url.host,
            let configuration = try? standard.configuration.applying(request.connection, to: request.url)
        else { return error }
        let settings = settings ?? HostTLSSettings(trustRoots: .system, pins: nil, identity: nil, minimumVersion: configuration.minimumTLSVersion)
        guard let reason = await secured.diagnose(host: host, port: url.port ?? 443, settings: settings, configuration: configuration) else {
            return error
        }
        var explained = reason.error(reason.message(host: host))
        explained.url = url
        explained.underlyingError = underlying
        explained.requestMayHaveBeenSent = false
        return explained
    }
}
