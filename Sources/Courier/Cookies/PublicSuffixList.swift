/// Public suffixes: the domains under which anyone may register a name (`com`, `co.uk`,
/// `github.io`), so that no cookie may be scoped to them.
///
/// ``mozilla`` is the Mozilla Public Suffix List, ICANN and private sections, built into
/// Courier (`scripts/update-public-suffix-list.py` regenerates it). Matching follows the
/// list's algorithm: the longest matching rule wins, a wildcard rule (`*.ck`) matches any one
/// label in its place, an exception rule (`!www.ck`) beats the wildcard it carves from, and
/// a name no rule matches has its last label as public suffix (the implicit `*` rule).
///
/// ```swift
/// PublicSuffixList.mozilla.publicSuffix(of: "www.example.co.uk")      // "co.uk"
/// PublicSuffixList.mozilla.registrableDomain(of: "www.example.co.uk") // "example.co.uk"
/// PublicSuffixList.mozilla.isPublicSuffix("github.io")                // true
/// ```
///
/// Names are compared in their ASCII form, lower-cased; internationalised names must be given
/// in their `xn--` form, as they appear in URLs.
public struct PublicSuffixList: Sendable {
    private let rules: Set<String>
    private let wildcards: Set<String>
    private let exceptions: Set<String>

    /// The Mozilla Public Suffix List built into Courier.
    public static let mozilla = PublicSuffixList(rules: PublicSuffixList.mozillaRules)

    /// A list from rules in the list's format: one rule per line or separated by spaces,
    /// `//` comments, `*.` wildcards and `!` exceptions.
    public init(rules text: String) {
        var rules = Set<String>()
        var wildcards = Set<String>()
        var exceptions = Set<String>()
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("//") {
            for token in line.split(whereSeparator: \.isWhitespace) {
                let rule = token.lowercased()
                if rule.hasPrefix("!") {
                    exceptions.insert(String(rule.dropFirst()))
                } else if rule.hasPrefix("*.") {
                    wildcards.insert(String(rule.dropFirst(2)))
                } else if !rule.isEmpty {
                    rules.insert(rule)
                }
            }
        }
        self.rules = rules
        self.wildcards = wildcards
        self.exceptions = exceptions
    }

    /// The public suffix of `host`: the longest suffix a rule names, or its last label when
    /// none does; `nil` for an empty name or one with an empty label.
    public func publicSuffix(of host: String) -> String? {
        let labels = PublicSuffixList.labels(of: host)
        guard !labels.isEmpty, !labels.contains(where: \.isEmpty) else { return nil }
        // Candidates from the longest to the shortest: the first match is the longest rule.
        for start in labels.indices {
            let candidate = labels[start...].joined(separator: ".")
            if exceptions.contains(candidate) {
                return labels[(start + 1)...].joined(separator: ".")
            }
            if rules.contains(candidate) {
                return candidate
            }
            if start + 1 < labels.count, wildcards.contains(labels[(start + 1)...].joined(separator: ".")) {
                return candidate
            }
        }
        return labels[labels.count - 1]
    }

    /// Whether `domain` is itself a public suffix.
    public func isPublicSuffix(_ domain: String) -> Bool {
        let name = PublicSuffixList.labels(of: domain).joined(separator: ".")
        return !name.isEmpty && publicSuffix(of: name) == name
    }

    /// The public suffix of `host` and one more label (`example.co.uk`); `nil` when `host`
    /// is a public suffix itself.
    public func registrableDomain(of host: String) -> String? {
        let labels = PublicSuffixList.labels(of: host)
        guard let suffix = publicSuffix(of: host) else { return nil }
        let suffixCount = suffix.split(separator: ".").count
        guard labels.count > suffixCount else { return nil }
        return labels[(labels.count - suffixCount - 1)...].joined(separator: ".")
    }

    /// The lower-cased labels of a name, without one trailing dot.
    private static func labels(of name: String) -> [String] {
        var name = name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty else { return [] }
        return name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }
}
