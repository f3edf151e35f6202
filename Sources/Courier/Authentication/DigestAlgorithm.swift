import Crypto
import Foundation

/// A Digest algorithm of RFC 7616 §3.3 that Courier answers.
enum DigestAlgorithm: String, Sendable, CaseIterable {
    case md5 = "MD5"
    case md5Session = "MD5-sess"
    case sha256 = "SHA-256"
    case sha256Session = "SHA-256-sess"

    /// The algorithm named by a challenge's `algorithm` parameter (any case); MD5 when absent,
    /// `nil` when Courier does not support it (SHA-512-256, say).
    init?(parameter: String?) {
        guard let parameter else {
            self = .md5
            return
        }
        guard let match = DigestAlgorithm.allCases.first(where: { $0.rawValue.lowercased() == parameter.lowercased() }) else {
            return nil
        }
        self = match
    }

    /// Whether the session key mixes in the nonces (the `-sess` variants).
    var isSession: Bool { self == .md5Session || self == .sha256Session }

    /// Higher is stronger: SHA-256 over MD5.
    var strength: Int { self == .sha256 || self == .sha256Session ? 2 : 1 }

    /// The hash of `bytes`, as lower-case hex.
    func hash<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
        switch self {
        case .md5, .md5Session: return Insecure.MD5.hash(data: bytes).hexadecimal
        case .sha256, .sha256Session: return SHA256.hash(data: bytes).hexadecimal
        }
    }

    /// The hash of the UTF-8 bytes of `text`, as lower-case hex.
    func hash(_ text: String) -> String { hash(Data(text.utf8)) }
}

extension Sequence<UInt8> {
    /// The bytes as lower-case hexadecimal.
    var hexadecimal: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
