import Foundation

/// A client certificate and its private key, shown to servers that ask for one.
///
/// ```swift
/// let identity = ClientIdentity.pem(certificate: .file("client.pem"), privateKey: .file("client.key"))
/// let bundled = ClientIdentity.pkcs12(.file("client.p12"), password: password)
/// ```
///
/// The identity is part of the connection key: requests made with different identities never
/// share a connection. Its description never shows the password.
public struct ClientIdentity: Sendable, Hashable, CustomStringConvertible {
    enum Storage: Sendable, Hashable {
        case pem(certificate: TLSMaterial, privateKey: TLSMaterial)
        case pkcs12(TLSMaterial, password: String)
    }

    let storage: Storage

    /// A PEM (or DER) certificate, optionally followed by its intermediates, and its private
    /// key in PEM (or DER).
    public static func pem(certificate: TLSMaterial, privateKey: TLSMaterial) -> ClientIdentity {
        ClientIdentity(storage: .pem(certificate: certificate, privateKey: privateKey))
    }

    /// A PKCS#12 bundle (`.p12`, `.pfx`) holding the certificate, its chain and the key,
    /// unlocked with `password`.
    public static func pkcs12(_ bundle: TLSMaterial, password: String) -> ClientIdentity {
        ClientIdentity(storage: .pkcs12(bundle, password: password))
    }

    /// Names the files, never the password.
    public var description: String {
        switch storage {
        case .pem(let certificate, let key): return "ClientIdentity(certificate: \(certificate), key: \(key))"
        case .pkcs12(let bundle, _): return "ClientIdentity(pkcs12: \(bundle))"
        }
    }

    /// A SHA-256 of the certificate (or of the PKCS#12 bundle), in hex: it names the identity
    /// in cache partitions without holding the material, the key or the password.
    func fingerprint() throws(CourierError) -> String {
        let material: Data
        switch storage {
        case .pem(let certificate, _): material = try certificate.data()
        case .pkcs12(let bundle, _): material = try bundle.data()
        }
        return Digest.sha256Hex(material)
    }
}
