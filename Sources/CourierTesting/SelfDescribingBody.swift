import Crypto
import Foundation

/// Bodies that say what they are, so that a test can tell an intact one from any other bytes
/// without remembering what was written: crash and corruption tests of cache stores.
///
/// A body is one line, `key<TAB>variant<TAB>serial<TAB>length`, followed by `length` bytes
/// drawn from a SHA-256 chain seeded with that line.
public enum SelfDescribingBody {
    /// The body for `key`, `variant` and `serial`, with `length` bytes after its first line.
    public static func make(key: String, variant: String, serial: Int, length: Int) -> Data {
        let line = "\(key)\t\(variant)\t\(serial)\t\(max(length, 0))\n"
        var body = Data(line.utf8)
        var block = Data(SHA256.hash(data: body))
        while body.count < line.utf8.count + length {
            body.append(block.prefix(line.utf8.count + length - body.count))
            block = Data(SHA256.hash(data: block))
        }
        return body
    }

    /// Whether `body` is exactly a body ``make(key:variant:serial:length:)`` made for `key`
    /// and `variant`.
    public static func isIntact(_ body: Data, key: String, variant: String) -> Bool {
        guard let newline = body.firstIndex(of: UInt8(ascii: "\n")) else { return false }
        let fields = String(decoding: body[..<newline], as: UTF8.self).split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0] == key, fields[1] == variant, let serial = Int(fields[2]), let length = Int(fields[3])
        else { return false }
        return make(key: key, variant: variant, serial: serial, length: length) == body
    }
}
