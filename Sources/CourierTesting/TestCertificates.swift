import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate and its P-256 private key, made at run time for tests.
public struct TestCertificate: Sendable {
    /// The certificate.
    public let certificate: Certificate
    /// Its private key.
    public let privateKey: P256.Signing.PrivateKey

    /// The certificate in PEM.
    public var certificatePEM: String {
        (try? certificate.serializeAsPEM().pemString) ?? ""
    }

    /// The certificate in DER.
    public var certificateDER: Data {
        var serializer = DER.Serializer()
        try? serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }

    /// The private key in PEM (PKCS#8).
    public var privateKeyPEM: String { privateKey.pemRepresentation }

    /// The public-key pin of the certificate: `sha256/` and the base64 SHA-256 digest of its
    /// DER SubjectPublicKeyInfo.
    public var publicKeyPin: String {
        "sha256/" + Data(SHA256.hash(data: privateKey.publicKey.derRepresentation)).base64EncodedString()
    }

    /// Writes the certificate and key as `NAME.pem` and `NAME.key` into `directory`; the key
    /// file is readable by its owner alone (mode 0600).
    public func write(to directory: URL, name: String) throws -> (certificate: URL, key: URL) {
        let certificateURL = directory.appendingPathComponent("\(name).pem")
        let keyURL = directory.appendingPathComponent("\(name).key")
        try Data(certificatePEM.utf8).write(to: certificateURL)
        try? FileManager.default.removeItem(at: keyURL)
        guard FileManager.default.createFile(atPath: keyURL.path, contents: Data(privateKeyPEM.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: keyURL.path])
        }
        return (certificateURL, keyURL)
    }

    /// A PKCS#12 bundle of the certificate, `chain` and the key, protected by `password`.
    public func pkcs12(password: String, chain: [TestCertificate] = []) -> Data {
        PKCS12Writer.bundle(
            key: Array(privateKey.derRepresentation),
            certificates: [certificateDER] + chain.map(\.certificateDER),
            password: password
        )
    }
}

/// Makes certificate authorities, server and client certificates for tests: P-256 keys,
/// host names and IP addresses in the subject alternative name, any validity period.
public enum TestCertificates {
    /// A root certificate authority.
    public static func authority(_ name: String = "Courier Test CA") throws -> TestCertificate {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: now - 3600,
            notValidAfter: now + 86_400 * 30,
            issuer: subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(key.publicKey))
            },
            issuerPrivateKey: .init(key)
        )
        return TestCertificate(certificate: certificate, privateKey: key)
    }

    /// A server (or, with `client`, a client) certificate for `hosts`, issued by `issuer`, or
    /// self-signed when `issuer` is `nil`; valid from `notBefore` to `notAfter`.
    public static func leaf(
        _ name: String = "localhost",
        hosts: [String] = ["localhost", "127.0.0.1"],
        issuer: TestCertificate?,
        notBefore: Date = Date() - 3600,
        notAfter: Date = Date() + 86_400,
        client: Bool = false
    ) throws -> TestCertificate {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        let names = hosts.map { host -> GeneralName in
            let parts = host.split(separator: ".").compactMap { UInt8($0) }
            return parts.count == 4 ? .ipAddress(ASN1OctetString(contentBytes: ArraySlice(parts))) : .dnsName(host)
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: issuer?.certificate.subject ?? subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                // A self-signed certificate is its own root, which must be marked as a CA
                // (as `openssl req -x509` marks it).
                if issuer == nil {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
                } else {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                }
                try ExtendedKeyUsage([client ? .clientAuth : .serverAuth])
                SubjectAlternativeNames(names)
                if let issuer {
                    AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: issuer.certificate.publicKey).keyIdentifier)
                }
            },
            issuerPrivateKey: .init(issuer?.privateKey ?? key)
        )
        return TestCertificate(certificate: certificate, privateKey: key)
    }
}
