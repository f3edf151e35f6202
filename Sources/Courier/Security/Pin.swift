import Crypto
import Foundation
import SwiftASN1
import X509

/// One pin: the SHA-256 digest of a certificate's SubjectPublicKeyInfo, or a whole certificate.
///
/// Public-key pins survive a certificate's renewal with the same key; certificate pins do not.
public struct Pin: Sendable, Hashable, CustomStringConvertible {
    enum Value: Sendable, Hashable {
        case publicKeySHA256(Data)
        case certificate(Data)
    }

    let value: Value

    private init(value: Value) { self.value = value }

    /// A pin on the SHA-256 digest of a SubjectPublicKeyInfo (32 bytes).
    public static func publicKeySHA256(_ digest: Data) throws(CourierError) -> Pin {
        guard digest.count == SHA256.byteCount else {
            throw TLSFailure.unusableMaterial.error("A public-key pin is a 32-byte SHA-256 digest; this one has \(digest.count) bytes.")
        }
        return Pin(value: .publicKeySHA256(digest))
    }

    /// Parses `sha256/BASE64`, the form `openssl` and HPKP print: the base64 of the SHA-256
    /// digest of the DER SubjectPublicKeyInfo.
    public init(_ text: String) throws(CourierError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("sha256/"), let digest = Data(base64Encoded: String(trimmed.dropFirst(7))) else {
            throw TLSFailure.unusableMaterial.error("The pin \(text) is not sha256/BASE64; compute it with: openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64")
        }
        self = try Pin.publicKeySHA256(digest)
    }

    /// A pin on the public key of `certificate` (PEM or DER).
    public static func publicKey(of certificate: TLSMaterial) throws(CourierError) -> Pin {
        guard let first = try certificate.certificates().first else {
            throw TLSFailure.unusableMaterial.error("\(certificate) holds no certificate to pin.")
        }
        return Pin(value: .publicKeySHA256(Pin.spkiDigest(first)))
    }

    /// A pin on the exact certificate in `certificate` (PEM or DER; the first one of a file).
    public static func certificate(_ certificate: TLSMaterial) throws(CourierError) -> Pin {
        guard let first = try certificate.certificates().first else {
            throw TLSFailure.unusableMaterial.error("\(certificate) holds no certificate to pin.")
        }
        return Pin(value: .certificate(Pin.der(first)))
    }

    /// `sha256/BASE64` for a public-key pin; `certificate/` and the certificate's SHA-256
    /// digest for a certificate pin.
    public var description: String {
        switch value {
        case .publicKeySHA256(let digest): return "sha256/" + digest.base64EncodedString()
        case .certificate(let der): return "certificate/" + Data(SHA256.hash(data: der)).base64EncodedString()
        }
    }

    /// Whether `certificate` matches this pin.
    func matches(_ certificate: Certificate) -> Bool {
        switch value {
        case .publicKeySHA256(let digest): return Pin.spkiDigest(certificate) == digest
        case .certificate(let der): return Pin.der(certificate) == der
        }
    }

    static func der(_ certificate: Certificate) -> Data {
        var serializer = DER.Serializer()
        // Serializing a certificate that was parsed or built in memory cannot fail.
        try? serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }

    static func spkiDigest(_ certificate: Certificate) -> Data {
        var serializer = DER.Serializer()
        try? serializer.serialize(certificate.publicKey)
        return Data(SHA256.hash(data: serializer.serializedBytes))
    }
}

/// The pins of one host, or of every subdomain of a domain.
///
/// A connection is accepted when any certificate of its verified chain matches any pin, so
/// list the pin in use and at least one backup (a key kept offline, or the next CA). After
/// ``expires`` the pins are no longer enforced and ordinary verification alone decides.
public struct HostPins: Sendable, Hashable {
    /// `api.example.com`, or `*.example.com` for any one-label subdomain of `example.com`
    /// (not `example.com` itself), or `*` for every host. Case and a trailing dot do not matter.
    public var host: String
    /// The accepted pins: the current one and its backups.
    public var pins: [Pin]
    /// The instant after which the pins are not enforced, or `nil` for never.
    public var expires: Date?

    /// Pins `host` to `pins` until `expires`.
    public init(host: String, pins: [Pin], expires: Date? = nil) {
        self.host = host
        self.pins = pins
        self.expires = expires
    }

    /// Whether the pins apply to `host` and are still enforced at `now`.
    func applies(to host: String, at now: Date) -> Bool {
        if let expires, now >= expires { return false }
        return HostPattern(self.host).matches(host)
    }

    /// Whether the verified `chain` holds a pinned certificate or key.
    func accepts(_ chain: [Certificate]) -> Bool {
        chain.contains { certificate in pins.contains { $0.matches(certificate) } }
    }
}

/// A host name, `*.` and a domain for its one-label subdomains, or `*` for every host;
/// compared without case and without a trailing dot.
struct HostPattern: Hashable {
    let text: String

    init(_ text: String) { self.text = HostPattern.normalized(text) }

    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        return host
    }

    func matches(_ host: String) -> Bool {
        let host = HostPattern.normalized(host)
        if text == "*" { return true }
        guard text.hasPrefix("*.") else { return host == text }
        let domain = text.dropFirst(2)
        guard host.hasSuffix("." + domain) else { return false }
        let label = host.dropLast(domain.count + 1)
        return !label.isEmpty && !label.contains(".")
    }
}
