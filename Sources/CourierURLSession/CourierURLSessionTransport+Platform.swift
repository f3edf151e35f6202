import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What URLSession can do differs between FoundationNetworking (Linux) and Apple platforms;
/// everything that differs is here.
extension CourierURLSessionTransport {
    #if canImport(FoundationNetworking)
    /// FoundationNetworking cannot pause a transfer (suspending a running task does not stop
    /// libcurl's reads), so the unread body is held, up to this much, and the exchange fails
    /// past it.
    static let defaultMaximumBufferedBytes = 64 * 1024 * 1024
    static let pauseThreshold = Int.max
    static let platformName = "FoundationNetworking (Linux)"
    #else
    /// A running task is suspended once this much is unread and resumed when its reader takes
    /// it, so the network is paced by the reader.
    static let defaultMaximumBufferedBytes = Int.max
    static let pauseThreshold = 512 * 1024
    static let platformName = "URLSession"
    #endif

    /// Stops `task` reading until ``resume(_:)``, where the platform can.
    static func pause(_ task: URLSessionTask) {
        #if !canImport(FoundationNetworking)
        task.suspend()
        #endif
    }

    /// Lets a task that ``pause(_:)`` stopped read again.
    static func resume(_ task: URLSessionTask) {
        #if !canImport(FoundationNetworking)
        task.resume()
        #endif
    }

    /// Refuses the settings URLSession cannot honour here: a security setting is never
    /// silently dropped.
    static func refuseUnsupported(_ configuration: ClientConfiguration) throws(CourierError) {
        func refuse(_ what: String) -> CourierError {
            CourierError(.invalidConfiguration, "CourierURLSessionTransport on \(platformName) cannot apply \(what); remove it, or use the default transport, which does.")
        }
        guard configuration.tls.isDefault else {
            throw refuse("custom trusted roots, pins or client certificates (ClientConfiguration.tls)")
        }
        guard configuration.proxy == nil else {
            throw refuse("ClientConfiguration.proxy (URLSession takes the system's proxy settings)")
        }
        guard configuration.proxyEnvironment == nil else {
            throw refuse("ClientConfiguration.proxyEnvironment (URLSession takes the system's proxy settings)")
        }
        #if canImport(FoundationNetworking)
        guard configuration.tls.minimumVersion == .tls12 else {
            throw refuse("a minimum TLS version other than 1.2 (libcurl's OpenSSL keeps its own floor of TLS 1.2)")
        }
        #endif
    }

    /// Refuses the connection settings of one request that URLSession cannot honour for one
    /// request alone: its connect timeout, proxy and TLS policy belong to the session. Its read
    /// timeout and decompression are honoured.
    static func refuseUnsupported(_ overrides: ConnectionOverrides, url: URL) throws(CourierError) {
        let refused: String? =
            overrides.connectTimeout != nil
            ? "a connect timeout of its own (connection.connectTimeout)"
            : overrides.proxy != nil
                ? "a proxy choice of its own (connection.proxy)" : overrides.tls != nil ? "a TLS policy of its own (connection.tls)" : nil
        guard let refused else { return }
        throw CourierError(
            .invalidConfiguration,
            "CourierURLSessionTransport on \(platformName) cannot give one request \(refused); remove it, or use the default transport, which does.",
            url: url
        )
    }

    /// Sets the oldest TLS version a connection may use, where the platform lets it be set.
    static func applyTLSFloor(_ version: MinimumTLSVersion, to settings: URLSessionConfiguration) {
        #if !canImport(FoundationNetworking)
        switch version {
        case .tls13: settings.tlsMinimumSupportedProtocolVersion = .TLSv13
        case .tls12: settings.tlsMinimumSupportedProtocolVersion = .TLSv12
        case .insecureTLS11: settings.tlsMinimumSupportedProtocolVersion = .TLSv11
        default: settings.tlsMinimumSupportedProtocolVersion = .TLSv10
        }
        #endif
    }
}
