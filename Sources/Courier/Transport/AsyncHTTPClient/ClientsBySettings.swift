import AsyncHTTPClient
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The AsyncHTTPClient instances of one transport, one set per connect timeout and proxy.
///
/// AsyncHTTPClient takes both per client, not per request, so a request whose
/// ``ConnectionOverrides`` name another connect timeout or proxy goes through instances of
/// its own, made the first time and kept until the transport shuts down: its connections are
/// never shared with requests of other settings. At most ``maximumSets`` sets are made; a
/// request that would need more fails with ``CourierError/Kind/invalidConfiguration`` rather
/// than open pools without end.
final class ClientsBySettings: Sendable {
    /// What sets one instance apart from another.
    struct Key: Hashable, Sendable {
        var connectTimeout: Duration
        var proxy: Proxy?
    }

    /// The most sets besides the transport's own.
    static let maximumSets = 32

    /// The instances for the transport's own settings.
    let standard: LoopClients
    private let standardKey: Key
    private let template: HTTPClient.Configuration
    private let logger: Logger
    private let made = NIOLockedValueBox<(sets: [Key: LoopClients], isShutDown: Bool)>(([:], false))

    /// `template` is every setting but the connect timeout and the proxy, which `key` gives.
    init(template: HTTPClient.Configuration, key: Key, logger: Logger) {
        self.template = template
        self.standardKey = key
        self.logger = logger
        self.standard = LoopClients(configuration: ClientsBySettings.configuration(template, key), logger: logger)
    }

    /// The instances for `key`.
    func clients(for key: Key) throws(CourierError) -> LoopClients {
        if key == standardKey { return standard }
        let found = made.withLockedValue { made -> LoopClients?? in
            if let clients = made.sets[key] { return clients }
            // After shutdown, the standard instances refuse the request as shut down.
            if made.isShutDown { return .some(standard) }
            guard made.sets.count < ClientsBySettings.maximumSets else { return .none }
            let clients = LoopClients(configuration: ClientsBySettings.configuration(template, key), logger: logger)
            made.sets[key] = clients
            return clients
        }
        guard let clients = found.flatMap({ $0 }) else {
            throw CourierError(
                .invalidConfiguration,
                "Requests of this client asked for more than \(ClientsBySettings.maximumSets) different pairs of connect timeout and proxy (CourierRequest.connection); each pair keeps connections of its own, so use a few fixed values."
            )
        }
        return clients
    }

    /// Shuts every instance down.
    func shutdown() async throws {
        let sets = made.withLockedValue { made in
            made.isShutDown = true
            return Array(made.sets.values)
        }
        try await shutDownEach(sets + [standard]) { try await $0.shutdown() }
    }

    /// `template` with the connect timeout and proxy of `key`.
    private static func configuration(_ template: HTTPClient.Configuration, _ key: Key) -> HTTPClient.Configuration {
        var settings = template
        settings.timeout.connect = .nanoseconds(key.connectTimeout.nanoseconds)
        if let proxy = key.proxy {
            // CONNECT for every origin, http included; the credentials go on CONNECT only.
            settings.proxy = .server(
                host: proxy.host, port: proxy.port,
                authorization: proxy.credentials.map { .basic(username: $0.user, password: $0.password) }
            )
        } else {
            settings.proxy = nil
        }
        return settings
    }
}
