import Foundation
import X509

/// Verifies a server's chain under one host's settings, then checks the host's pins against
/// the chain that verified.
///
/// The chain is built from the presented certificates to one of the trusted roots (RFC 5280
/// path validation, validity dates, host name or IP address); the pins are then matched
/// against that built chain, so a pinned certificate the server merely appends to its chain
/// counts for nothing. A failure is explained by re-checking the chain: expired or not yet
/// valid, trusted but for another host, self-signed, or leading nowhere trusted.
struct TrustEvaluator: Sendable {
    let roots: CertificateStore
    let pins: HostPins?

    /// Loads the roots `settings` trust.
    init(settings: HostTLSSettings) throws(CourierError) {
        var roots = settings.trustRoots.includesSystemRoots ? CertificateStore.systemTrustRoots : CertificateStore()
        for material in settings.trustRoots.certificates {
            roots.append(contentsOf: try material.certificates())
        }
        self.roots = roots
        self.pins = settings.pins
    }

    /// What a check of a chain found.
    enum Outcome: Sendable {
        /// The verified chain, leaf first.
        case trusted([Certificate])
        /// Why the chain is refused.
        case refused(TLSFailure)
    }

    /// The verified chain, or why there is none.
    func evaluate(_ presented: [Certificate], host: String, now: Date = Date()) async -> Outcome {
        guard let leaf = presented.first else { return .refused(.handshakeFailed) }
        let intermediates = CertificateStore(presented.dropFirst())
        let identity = TrustEvaluator.identityPolicy(host)
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy()
            identity
        }
        switch await verifier.validate(leaf: leaf, intermediates: intermediates) {
        case .validCertificate(let chain):
            let chain = Array(chain)
            if let pins, !pins.accepts(chain) { return .refused(.pinMismatch) }
            return .trusted(chain)
        case .couldNotValidate:
            return .refused(await diagnose(presented, intermediates: intermediates, now: now))
        }
    }

    /// Why `presented` did not verify.
    private func diagnose(_ presented: [Certificate], intermediates: CertificateStore, now: Date) async -> TLSFailure {
        if presented.contains(where: { now > $0.notValidAfter }) { return .expired }
        if presented.contains(where: { now < $0.notValidBefore }) { return .notYetValid }
        let leaf = presented[0]
        var anyHost = Verifier(rootCertificates: roots) { RFC5280Policy() }
        if case .validCertificate = await anyHost.validate(leaf: leaf, intermediates: intermediates) {
            return .wrongHost
        }
        if leaf.subject == leaf.issuer, presented.count == 1 { return .selfSigned }
        return .unknownAuthority
    }

    /// The identity check for `host`: a DNS name, or an IP address literal.
    static func identityPolicy(_ host: String) -> ServerIdentityPolicy {
        let host = HostPattern.normalized(host)
        return isAddress(host)
            ? ServerIdentityPolicy(serverHostname: nil, serverIP: host)
            : ServerIdentityPolicy(serverHostname: host, serverIP: nil)
    }

    /// Whether `host` is an IPv4 or IPv6 address literal rather than a name.
    static func isAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0.isNumber || $0 == "." })
    }
}
