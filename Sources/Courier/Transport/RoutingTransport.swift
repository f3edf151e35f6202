import Foundation

/// The transport a ``CourierClient`` makes for itself: AsyncHTTPClient for http, and for https hosts
/// under the default TLS settings; ``ChannelTransport`` for https hosts with TLS settings of
/// their own (custom roots, pins, a client certificate).
///
/// Keeping the two apart is what makes trust settings part of the connection key:
/// AsyncHTTPClient's pool only ever holds connections verified against the system roots with
/// no client certificate, and ``ChannelTransport`` keys its pool by origin and settings.
final class RoutingTransport: Transport {
    private let standard: CourierAsyncHTTPClientTransport
    private let secured: ChannelTransport
    private let policy: TLSPolicy
    private let isProxied: Bool

    init(configuration: TransportConfiguration, policy: TLSPolicy, standard: CourierAsyncHTTPClientTransport) {
        self.standard = standard
        self.secured = ChannelTransport(configuration: configuration)
        self.policy = policy
        self.isProxied = configuration.proxy != nil
    }

    func send(_ request: CourierHTTPRequest, deadline: ContinuousClock.Instant?) async throws -> CourierResponse {
        if let settings = try settings(for: request.url) {
            return try await secured.send(request, settings: settings, deadline: deadline)
        }
        do {
            return try await standard.send(request, deadline: deadline)
        } catch let error as CourierError where error.kind == .tls {
            throw await explain(error, url: request.url)
        }
    }

    nonisolated(nonsending) func stream<Result: Sendable>(
        _ request: CourierHTTPRequest,
        deadline: ContinuousClock.Instant?,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        if let settings = try settings(for: request.url) {
            return try await secured.stream(request, settings: settings, deadline: deadline, body: body)
        }
        do {
            return try await standard.stream(request, deadline: deadline, body: body)
        } catch let error as CourierError where error.kind == .tls {
            throw await explain(error, url: request.url)
        }
    }

    func shutdown() async throws {
        await secured.shutdown()
        try await standard.shutdown()
    }

    /// The settings of the URL's host when it is https and they are not the defaults. Such a
    /// host is refused when a proxy is configured: its verified connections are made directly,
    /// and going around the proxy the caller asked for is not an option.
    private func settings(for url: URL) throws(CourierError) -> HostTLSSettings? {
        guard !policy.isDefault, url.scheme?.lowercased() == "https", let host = url.host,
            let settings = policy.settings(for: host, at: Date())
        else { return nil }
        guard !isProxied else {
            throw CourierError(
                .proxy,
                "\(host) has TLS settings of its own (custom roots, pins or a client certificate), whose verified connections do not go through a proxy; remove the proxy or those settings.",
                url: url
            )
        }
        return settings
    }

    /// `error` with the reason a certificate failed BoringSSL's verification, which says only
    /// that it failed. The reason is found by verifying, under the same default settings, the
    /// chain the server presents to a second connection; that connection sends nothing, and
    /// only explains a failure that has already happened.
    private func explain(_ error: CourierError, url: URL) async -> CourierError {
        guard error.tlsFailure == .handshakeFailed, let underlying = error.underlyingError,
            TLSFailure.isVerificationFailure(underlying), let host = url.host
        else { return error }
        let settings = HostTLSSettings(trustRoots: .system, pins: nil, identity: nil)
        guard let reason = await secured.diagnose(host: host, port: url.port ?? 443, settings: settings) else { return error }
        var explained = reason.error(reason.message(host: host))
        explained.url = url
        explained.underlyingError = underlying
        explained.requestMayHaveBeenSent = false
        return explained
    }
}
