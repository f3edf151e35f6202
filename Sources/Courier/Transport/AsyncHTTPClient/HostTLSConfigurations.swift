import NIOConcurrencyHelpers
import NIOSSL

/// NIOSSL configurations for hosts whose TLS settings AsyncHTTPClient can carry per request:
/// custom trust roots, a client certificate and the TLS floor, everything but pins.
///
/// Every distinct settings value is kept until the transport goes: a client whose requests
/// bring ever new TLS policies keeps one configuration (and one pool) per policy.
///
/// AsyncHTTPClient keys its pool by a request's TLS configuration, so connections made under
/// one host's settings never carry a request made under others, and they negotiate HTTP/2 by
/// ALPN exactly as connections under the defaults do. Each distinct settings value is loaded
/// once: its files are read and parsed the first time, and the same configuration (so the
/// same pool key) serves every later request.
final class HostTLSConfigurations: Sendable {
    private let made = NIOLockedValueBox<[HostTLSSettings: TLSConfiguration]>([:])

    /// The configuration of `settings`, whose pins must be `nil`.
    func configuration(for settings: HostTLSSettings) throws(CourierError) -> TLSConfiguration {
        let (ready, count) = made.withLockedValue { ($0[settings], $0.count) }
        if let ready { return ready }
        if count >= HostTLSSettings.maximumDistinct { throw HostTLSSettings.tooMany() }
        var tls = settings.minimumVersion.clientConfiguration()
        tls.certificateVerification = .fullVerification
        var roots: [NIOSSLCertificate] = []
        for material in settings.trustRoots.certificates {
            for certificate in try material.certificates() {
                do {
                    roots.append(try NIOSSLCertificate(bytes: Array(Pin.der(certificate)), format: .der))
                } catch {
                    throw TLSFailure.unusableMaterial.error("The trusted certificate in \(material) could not be used (\(error)); give a PEM or DER certificate.")
                }
            }
        }
        if settings.trustRoots.includesSystemRoots {
            tls.trustRoots = .default
            if !roots.isEmpty { tls.additionalTrustRoots = [.certificates(roots)] }
        } else {
            tls.trustRoots = .certificates(roots)
        }
        if let identity = settings.identity {
            let (chain, key) = try ChannelConnector.load(identity)
            tls.certificateChain = chain.map { .certificate($0) }
            tls.privateKey = .privateKey(key)
        }
        made.withLockedValue { $0[settings] = tls }
        return tls
    }
}
