import Crypto
import Foundation

/// The keys a response is stored under (RFC 9111 §2, §4.1).
enum CacheKey {
    /// The primary key: the URL without its fragment, after a partition named by the SHA-256
    /// of the credential identity, so that two identities never share an entry and no secret
    /// appears in a key.
    static func primary(for url: URL, identity: String?) -> String {
        var target = url.absoluteString
        if target.utf8.contains(UInt8(ascii: "#")) {
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
            components?.fragment = nil
            target = components?.string ?? target
        }
        guard let identity else { return target }
        return "[\(digest(identity))] " + target
    }

    /// The lower-case hexadecimal SHA-256 of `text`.
    static func digest(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The secondary key of a request for a response whose header fields are `response`: the
    /// normalised values of the request fields its `Vary` names; `nil` for `Vary: *`, which
    /// no request matches.
    static func variant(request: Headers, response: Headers) -> String? {
        let names = Storability.varyNames(response)
        if names.contains("*") { return nil }
        return names.sorted().map { name in
            let values = request.values(for: name)
            return name + ":" + (values.isEmpty ? "\u{0}" : normalise(values))
        }.joined(separator: "\n")
    }

    /// Combines field lines and removes the whitespace around list elements and inside them
    /// that does not change their meaning.
    static func normalise(_ values: [String]) -> String {
        FieldList.elements(values).map { element in
            element.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        }.filter { !$0.isEmpty }.joined(separator: ", ")
    }

    /// Whether `entry` was stored for a request with the same selecting field values.
    static func matches(_ entry: CacheEntry, request: Headers) -> Bool {
        variant(request: request, response: entry.headers) == entry.variant
    }
}
