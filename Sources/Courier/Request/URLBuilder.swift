import Foundation

/// Builds a request's URL from the client's base URL and the request's path, by one rule.
///
/// **The rule.**
/// 1. A path that starts with a scheme (`https://…`, `http://…`) is an absolute URL and is used
///    as it is; the base URL is ignored. Only `http` and `https` are accepted.
/// 2. A path that starts with `//` takes the base URL's scheme and nothing else from it.
/// 3. Any other path is *appended* to the base URL's path: the base path keeps everything it
///    has, one `/` separates the two, and leading slashes of the path are dropped, so
///    `https://api.example.com/v1` + `/users` and `https://api.example.com/v1/` + `users`
///    both give `https://api.example.com/v1/users`. An empty path gives the base URL itself.
///    A trailing slash in the path is kept.
/// 4. `.` and `..` segments are then removed as RFC 3986 §5.2.4 does; `..` may climb out of
///    the base path but never above the root. Percent-encoded dots (`%2E%2E`) are data, not
///    segments.
/// 5. The query is the base URL's query, then the path's own query, then the request's query
///    items, then its parameters (when they go into the query), joined with `&`.
/// 6. Characters not allowed in a path (space, non-ASCII…) are percent-encoded; existing `%XX`
///    escapes are kept. CR, LF, NUL and other control characters are refused with
///    ``CourierError/Kind/invalidURL``.
enum URLBuilder {
    /// An absolute URL cut into its parts, as UTF-8 text.
    struct Parts {
        /// Scheme and authority: `https://user@host:8080`.
        var prefix: String
        var path: String
        var query: String?
        var fragment: String?
    }

    static func url(
        path: String,
        base: URL?,
        queryPairs: [(String, String?)] = []
    ) throws(CourierError) -> URL {
        try url(path: path, baseString: base.map { $0.absoluteString }, queryPairs: queryPairs)
    }

    /// The same rule, with the base URL given as text (a client keeps its base as text, so
    /// that it is not rendered again for every request).
    static func url(
        path: String,
        baseString base: String?,
        queryPairs: [(String, String?)] = []
    ) throws(CourierError) -> URL {
        if let url = canonicalURL(path: path, baseString: base, queryPairs: queryPairs) { return url }
        return try builtURL(path: path, baseString: base, queryPairs: queryPairs)
    }

    /// The rule applied step by step: the input cut into parts, joined, encoded and parsed.
    static func builtURL(path: String, baseString base: String?, queryPairs: [(String, String?)]) throws(CourierError) -> URL {
        try rejectControlCharacters(in: path, input: path)
        let parts: Parts
        if hasScheme(path) {
            parts = try absoluteParts(path, input: path)
        } else if isSchemeRelative(path) {
            guard let base, let colon = base.utf8.firstIndex(of: UInt8(ascii: ":")) else {
                throw CourierError(.invalidURL, "The path \(WireValidation.quoted(path)) has no scheme and the client has no base URL to take one from; set ClientConfiguration.baseURL or pass an absolute URL.")
            }
            parts = try absoluteParts(String(base[..<colon]) + ":" + path, input: path)
        } else {
            guard let base else {
                throw CourierError(
                    .invalidURL, "The path \(WireValidation.quoted(path)) is relative and the client has no base URL; set ClientConfiguration.baseURL or pass an absolute URL such as https://example.com\(path.hasPrefix("/") ? "" : "/")\(path).")
            }
            guard hasScheme(base), let baseParts = split(base) else {
                throw CourierError(.invalidURL, "The base URL \(WireValidation.quoted(base)) is not an absolute http or https URL; write it as https://host[:port][/path].")
            }
            parts = join(baseParts, path)
        }
        return try finish(parts, queryPairs: queryPairs, input: path)
    }

    /// Splits an absolute URL into its parts; `nil` when it has no `://`.
    static func split(_ url: String) -> Parts? {
        let bytes = Array(url.utf8)
        guard let schemeEnd = find([58, 47, 47], in: bytes) else { return nil }  // "://"
        var index = schemeEnd + 3
        while index < bytes.count, bytes[index] != UInt8(ascii: "/"), bytes[index] != UInt8(ascii: "?"),
            bytes[index] != UInt8(ascii: "#")
        {
            index += 1
        }
        let prefix = text(bytes[..<index])
        let (path, query, fragment) = splitPathQueryFragment(bytes[index...])
        return Parts(prefix: prefix, path: path, query: query, fragment: fragment)
    }

    private static func absoluteParts(_ url: String, input: String) throws(CourierError) -> Parts {
        guard let parts = split(url) else {
            let scheme = url.utf8.firstIndex(of: UInt8(ascii: ":")).map { url[..<$0].lowercased() } ?? ""
            if scheme != "http" && scheme != "https" { throw unsupportedScheme(scheme, input: input) }
            throw CourierError(.invalidURL, "\(WireValidation.quoted(input)) is not a valid URL; write it as https://host[:port][/path].")
        }
        return parts
    }

    private static func join(_ base: Parts, _ path: String) -> Parts {
        let bytes = Array(path.utf8)
        var (relative, ownQuery, fragment) = splitPathQueryFragment(bytes[...])
        relative = String(relative.drop { $0 == "/" })
        var joinedPath = base.path
        if !relative.isEmpty {
            if joinedPath.utf8.last != UInt8(ascii: "/") { joinedPath += "/" }
            joinedPath += relative
        }
        let queries = [base.query, ownQuery].compactMap { $0 }.filter { !$0.isEmpty }
        return Parts(
            prefix: base.prefix, path: joinedPath,
            query: queries.isEmpty ? nil : queries.joined(separator: "&"), fragment: fragment
        )
    }

    private static func finish(_ parts: Parts, queryPairs: [(String, String?)], input: String) throws(CourierError) -> URL {
        let prefix = Array(parts.prefix.utf8)
        guard let colon = prefix.firstIndex(of: UInt8(ascii: ":")) else {
            throw CourierError(.invalidURL, "\(WireValidation.quoted(input)) is not a valid URL; write it as https://host[:port][/path].")
        }
        let scheme = text(prefix[..<colon]).lowercased()
        guard scheme == "http" || scheme == "https" else { throw unsupportedScheme(scheme, input: input) }
        let authority = prefix[(colon + 3)...]
        let hostAndPort = authority.lastIndex(of: UInt8(ascii: "@")).map { authority[($0 + 1)...] } ?? authority
        guard let first = hostAndPort.first, first != UInt8(ascii: ":") else {
            throw CourierError(.invalidURL, "The URL \(WireValidation.quoted(input)) has no host; write it as https://host[:port][/path].")
        }
        if let portText = port(of: hostAndPort) {
            guard let port = Int(portText), (0...65535).contains(port) else {
                throw CourierError(.invalidURL, "The URL \(WireValidation.quoted(input)) has the port \(portText); ports run from 0 to 65535.")
            }
        }
        var path = PercentEncoding.encodeKeepingReserved(parts.path, extra: ":@/")
        path = removeDotSegments(path)
        var query = parts.query.map { PercentEncoding.encodeKeepingReserved($0, extra: ":@/?") }
        if !queryPairs.isEmpty {
            let encoded = queryPairs.map { name, value in
                PercentEncoding.encodeQueryComponent(name) + (value.map { "=" + PercentEncoding.encodeQueryComponent($0) } ?? "")
            }.joined(separator: "&")
            query = (query.map { $0.isEmpty ? "" : $0 + "&" } ?? "") + encoded
        }
        var result = scheme + text(prefix[colon...]) + path
        if let query { result += "?" + query }
        if let fragment = parts.fragment {
            result += "#" + PercentEncoding.encodeKeepingReserved(fragment, extra: ":@/?")
        }
        guard let url = URL(string: result), url.host?.isEmpty == false else {
            throw CourierError(.invalidURL, "\(WireValidation.quoted(input)) is not a valid URL (check the host and port); write it as https://host[:port][/path].")
        }
        return url
    }

    /// The digits after the host's last colon (outside IPv6 brackets), if any.
    private static func port(of hostAndPort: ArraySlice<UInt8>) -> String? {
        let afterBracket = hostAndPort.lastIndex(of: UInt8(ascii: "]")) ?? hostAndPort.startIndex
        guard let colon = hostAndPort[afterBracket...].lastIndex(of: UInt8(ascii: ":")) else { return nil }
        let digits = hostAndPort[(colon + 1)...]
        return digits.isEmpty ? nil : text(digits)
    }

    private static func unsupportedScheme(_ scheme: String, input: String) -> CourierError {
        CourierError(.invalidURL, "The URL \(WireValidation.quoted(input)) uses the scheme \"\(scheme)\"; only http and https are supported (write a relative path whose first segment holds a colon as ./a:b).")
    }

    /// Splits `path?query#fragment`.
    private static func splitPathQueryFragment(_ bytes: ArraySlice<UInt8>) -> (String, String?, String?) {
        var rest = bytes
        var fragment: String?
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
            fragment = text(rest[(hash + 1)...])
            rest = rest[..<hash]
        }
        var query: String?
        if let mark = rest.firstIndex(of: UInt8(ascii: "?")) {
            query = text(rest[(mark + 1)...])
            rest = rest[..<mark]
        }
        return (text(rest), query, fragment)
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if bytes[start..<(start + needle.count)].elementsEqual(needle) { return start }
        }
        return nil
    }

    /// Whether `text` starts with `scheme ":"` (RFC 3986 §3.1). As in RFC 3986 §4.2, a relative
    /// path whose first segment holds a colon must be written `./a:b` or `/a:b`.
    static func hasScheme(_ text: String) -> Bool {
        var sawLetter = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                sawLetter = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                if !sawLetter { return false }
            case UInt8(ascii: ":"):
                return sawLetter
            default:
                return false
            }
        }
        return false
    }

    static func rejectControlCharacters(in text: String, input: String) throws(CourierError) {
        // UTF-8 never encodes a non-ASCII scalar with bytes below 0x80, so a byte scan suffices.
        for byte in text.utf8 where byte < 0x20 || byte == 0x7F {
            throw CourierError(.invalidURL, "The URL or path \(WireValidation.quoted(input)) contains a control character (CR, LF, NUL…); remove it or percent-encode it if it is data.")
        }
    }

    /// RFC 3986 §5.2.4.
    static func removeDotSegments(_ path: String) -> String {
        guard path.utf8.contains(UInt8(ascii: ".")) else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let absolute = path.hasPrefix("/")
        for (index, segment) in segments.enumerated() {
            if index == 0 && absolute { continue }
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return (absolute ? "/" : "") + output.joined(separator: "/")
    }
}
