import Crypto
import Foundation

/// Digests that name things without holding them.
package enum Digest {
    /// The SHA-256 of `bytes`, as 64 lowercase hexadecimal digits.
    package static func sha256Hex(_ bytes: Data) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}
