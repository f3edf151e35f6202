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
            guard !values.isEmpty else { return name + ":\u{0}" }
            return name + ":" + (unorderedFields.contains(name) ? normaliseUnordered(values) : normalise(values))
        }.joined(separator: "\n")
    }

    /// Fields whose elements may be reordered and lower-cased without changing their meaning
    /// (RFC 9111 §4.1 allows such normalisation): content codings and language ranges are
    /// case-insensitive, and preference is given by `q`, not by position (RFC 9110 §12.5.3,
    /// §12.5.4). `Vary` names are lower-cased before they are looked up here.
    static let unorderedFields: Set<String> = ["accept-encoding", "accept-language"]

    /// The elements of an `Accept-Encoding` or `Accept-Language` value, each lower-cased, its
    /// `q` written in its shortest form (`q=1`, the default, left out), sorted: `gzip, br` and
    /// `BR;q=1.0,gzip` give the same key. An element whose weight is not a valid `qvalue` is
    /// kept as it is, lower-cased, so that it matches only itself.
    static func normaliseUnordered(_ values: [String]) -> String {
        FieldList.elements(values).map { element -> String in
            let parts = element.lowercased().unicodeScalars.split(separator: ";").map {
                String(Substring($0)).trimmingCharacters(in: .whitespaces)
            }
            guard let token = parts.first, !token.isEmpty else { return element.lowercased() }
            var normalised = token
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0] == "q" else {
                    normalised += ";" + pair.joined(separator: "=")
                    continue
                }
                guard let weight = qvalue(pair[1]) else { return element.lowercased() }
                if weight != "1" { normalised += ";q=" + weight }
            }
            return normalised
        }.sorted().joined(separator: ", ")
    }

    /// A `qvalue` (RFC 9110 §12.4.2: `0` to `1` with at most three decimals) in its shortest
    /// form; `nil` when `text` is not one.
    static func qvalue(_ text: String) -> String? {
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = pieces.first, whole == "0" || whole == "1" else { return nil }
        let fraction = pieces.count == 2 ? pieces[1] : ""
        guard fraction.count <= 3, fraction.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        if whole == "1" { return fraction.allSatisfy { $0 == "0" } ? "1" : nil }
        let digits = fraction.reversed().drop { $0 == "0" }.reversed()
        return digits.isEmpty ? "0" : "0." + String(digits)
    }

    /// Combines field lines and removes the whitespace around list elements and inside them
    /// that does not change their meaning.
    static func normalise(_ values: [String]) -> String {
        FieldList.elements(values).map { element in
            element.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        }.filter { !$0.isEmpty }.joined(separator: ", ")
    }

    /// Whether `entry` was stored for a request with the same selecting field values.
    static func matches(_ entry: CourierCacheEntry, request: Headers) -> Bool {
        variant(request: request, response: entry.headers) == entry.variant
    }
}
