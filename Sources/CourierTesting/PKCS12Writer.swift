import Crypto
import Foundation

/// Writes PKCS#12 bundles (RFC 7292) for tests: the key and certificates in plain safe bags,
/// the whole protected by an HMAC-SHA256 integrity check keyed by the password, which is what
/// a reader checks the password against.
enum PKCS12Writer {
    private static let data: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01]
    private static let keyBag: [UInt8] = [0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c, 0x0a, 0x01, 0x01]
    private static let certBag: [UInt8] = [0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c, 0x0a, 0x01, 0x03]
    private static let x509Certificate: [UInt8] = [0x06, 0x0a, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x16, 0x01]
    private static let sha256: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
    private static let iterations = 2048

    static func bundle(key: [UInt8], certificates: [Data], password: String) -> Data {
        var bags = [sequence(keyBag + explicit(0, key))]
        for certificate in certificates {
            bags.append(sequence(certBag + explicit(0, sequence(x509Certificate + explicit(0, octets(Array(certificate)))))))
        }
        let safeContents = sequence(bags.flatMap { $0 })
        let authenticatedSafe = sequence(sequence(data + explicit(0, octets(safeContents))))
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let macKey = derive(password: password, salt: salt)
        let mac = Array(HMAC<SHA256>.authenticationCode(for: authenticatedSafe, using: SymmetricKey(data: macKey)))
        let macData = sequence(
            sequence(sequence(sha256 + [0x05, 0x00]) + octets(mac)) + octets(salt) + integer(iterations)
        )
        return Data(sequence(integer(3) + sequence(data + explicit(0, octets(authenticatedSafe))) + macData))
    }

    /// The MAC key: RFC 7292 appendix B.2 with SHA-256 (ID 3), one block.
    private static func derive(password: String, salt: [UInt8]) -> [UInt8] {
        let blockSize = 64
        var bmp: [UInt8] = []
        for unit in password.utf16 { bmp += [UInt8(unit >> 8), UInt8(unit & 0xff)] }
        bmp += [0, 0]
        func stretch(_ bytes: [UInt8]) -> [UInt8] {
            guard !bytes.isEmpty else { return [] }
            let length = blockSize * ((bytes.count + blockSize - 1) / blockSize)
            return (0..<length).map { bytes[$0 % bytes.count] }
        }
        var digest = Array(SHA256.hash(data: [UInt8](repeating: 3, count: blockSize) + stretch(salt) + stretch(bmp)))
        for _ in 1..<iterations { digest = Array(SHA256.hash(data: digest)) }
        return digest
    }

    private static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8]
        if content.count < 0x80 {
            length = [UInt8(content.count)]
        } else {
            var count = content.count
            var bytes: [UInt8] = []
            while count > 0 {
                bytes.insert(UInt8(count & 0xff), at: 0)
                count >>= 8
            }
            length = [0x80 | UInt8(bytes.count)] + bytes
        }
        return [tag] + length + content
    }

    private static func sequence(_ content: [UInt8]) -> [UInt8] { tlv(0x30, content) }
    private static func octets(_ content: [UInt8]) -> [UInt8] { tlv(0x04, content) }
    private static func explicit(_ number: UInt8, _ content: [UInt8]) -> [UInt8] { tlv(0xa0 | number, content) }

    private static func integer(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            bytes.insert(UInt8(rest & 0xff), at: 0)
            rest >>= 8
        } while rest > 0
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return tlv(0x02, bytes)
    }
}
