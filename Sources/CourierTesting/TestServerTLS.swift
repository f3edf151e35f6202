import CourierDemoServer
import NIOSSL
import X509

/// How a ``TestServer`` speaks TLS: the chain it presents, its key, and whether it asks for
/// client certificates.
public struct TestServerTLS: Sendable {
    /// The certificates sent, leaf first; extra certificates (even unrelated ones) may follow.
    public var chain: [TestCertificate]
    /// The authority client certificates must be issued by; with it set the server requires
    /// a client certificate, and refuses connections without a valid one.
    public var clientAuthority: TestCertificate?
    /// The newest TLS version the server speaks, `11` for TLS 1.1 up to `13`; `nil` for
    /// NIOSSL's default. Lets tests stand in for legacy servers.
    public var maximumVersion: Int?

    /// A server presenting `chain` (leaf first; its key is the first one's).
    public init(chain: [TestCertificate], clientAuthority: TestCertificate? = nil) {
        self.chain = chain
        self.clientAuthority = clientAuthority
    }

    /// The context of a server; `applicationProtocols` are offered in ALPN (`h2` for HTTP/2).
    func makeContext(applicationProtocols: [String] = []) throws -> NIOSSLContext {
        let certificates = try chain.map { try NIOSSLCertificate(bytes: Array($0.certificateDER), format: .der) }
        let key = try NIOSSLPrivateKey(bytes: Array(chain[0].privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key)
        )
        configuration.applicationProtocols = applicationProtocols
        switch maximumVersion {
        case 10?: configuration.maximumTLSVersion = .tlsv1; configuration.minimumTLSVersion = .tlsv1
        case 11?: configuration.maximumTLSVersion = .tlsv11; configuration.minimumTLSVersion = .tlsv1
        case 12?: configuration.maximumTLSVersion = .tlsv12
        default: break
        }
        if let clientAuthority {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(clientAuthority.certificateDER), format: .der)])
        }
        return try NIOSSLContext(configuration: configuration)
    }
}
