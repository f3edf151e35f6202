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
    static func url(
        path: String,
        base: URL?,
        queryPairs: [(String, String?)] = []
    ) throws(CourierError) -> URL {
        try rejectControlCharacters(in: path, input: path)
        var target: String
        if hasScheme(path) {
            target = path
        } else if path.hasPrefix("//") {
            guard let base, let scheme = base.scheme else {
                throw CourierError(.invalidURL, "The path \(WireValidation.quoted(path)) has no scheme and the client has no base URL to take one from; set ClientConfiguration.baseURL or pass an absolute URL.")
            }
            target = scheme + ":" + path
        } else {
            guard let base else {
                throw CourierError(.invalidURL, "The path \(WireValidation.quoted(path)) is relative and the client has no base URL; set ClientConfiguration.baseURL or pass an absolute URL such as https://example.com\(path.hasPrefix("/") ? "" : "/")\(path).")
            }
            target = try join(base: base.absoluteString, path: path)
        }
        return try finish(target, queryPairs: queryPairs, input: path)
    }

    /// Splits an absolute http(s) URL string into prefix (scheme + authority), path, query, fragment.
    static func split(_ url: String) -> (prefix: String, path: String, query: String?, fragment: String?)? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let afterScheme = url[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        let prefix = String(url[..<authorityEnd])
        var rest = Substring(url[authorityEnd...])
        var fragment: String?
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        var query: String?
        if let mark = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: mark)...])
            rest = rest[..<mark]
        }
        return (prefix, String(rest), query, fragment)
    }

    private static func join(base: String, path: String) throws(CourierError) -> String {
        guard let parts = split(base) else {
            throw CourierError(.invalidURL, "The base URL \(WireValidation.quoted(base)) is not an absolute http or https URL; write it as https://host[:port][/path].")
        }
        var relative = Substring(path)
        var fragment: Substring?
        if let hash = relative.firstIndex(of: "#") {
            fragment = relative[relative.index(after: hash)...]
            relative = relative[..<hash]
        }
        var ownQuery: Substring?
        if let mark = relative.firstIndex(of: "?") {
            ownQuery = relative[relative.index(after: mark)...]
            relative = relative[..<mark]
        }
        let trimmed = relative.drop { $0 == "/" }
        var joinedPath = parts.path
        if !trimmed.isEmpty {
            if !joinedPath.hasSuffix("/") { joinedPath += "/" }
            joinedPath += trimmed
        }
        var result = parts.prefix + joinedPath
        let queries = [parts.query, ownQuery.map(String.init)].compactMap { $0 }.filter { !$0.isEmpty }
        if !queries.isEmpty { result += "?" + queries.joined(separator: "&") }
        if let fragment { result += "#" + fragment }
        return result
    }

    private static func finish(_ target: String, queryPairs: [(String, String?)], input: String) throws(CourierError) -> URL {
        guard let schemeEnd = target.firstIndex(of: ":") else {
            throw CourierError(.invalidURL, "\(WireValidation.quoted(input)) is not a valid URL; write it as https://host[:port][/path].")
        }
        let scheme = target[..<schemeEnd].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw CourierError(.invalidURL, "The URL \(WireValidation.quoted(input)) uses the scheme \"\(scheme)\"; only http and https are supported (write a relative path whose first segment holds a colon as ./a:b).")
        }
        guard let parts = split(target) else {
            throw CourierError(.invalidURL, "\(WireValidation.quoted(input)) is not a valid URL; write it as https://host[:port][/path].")
        }
        let host = parts.prefix[parts.prefix.index(schemeEnd, offsetBy: 3)...]
            .split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        guard !host.isEmpty, !host.hasPrefix(":") else {
            throw CourierError(.invalidURL, "The URL \(WireValidation.quoted(input)) has no host; write it as https://host[:port][/path].")
        }
        var path = PercentEncoding.encodeKeepingReserved(parts.path, extra: ":@/")
        path = removeDotSegments(path)
        var query = parts.query.map { PercentEncoding.encodeKeepingReserved($0, extra: ":@/?") }
        if !queryPairs.isEmpty {
            let encoded = queryPairs.map { name, value in
                PercentEncoding.encodeQueryComponent(name) + (value.map { "=" + PercentEncoding.encodeQueryComponent($0) } ?? "")
            }.joined(separator: "&")
            query = (query?.isEmpty == false ? query! + "&" : "") + encoded
        }
        var result = String(scheme) + parts.prefix[schemeEnd...] + path
        if let query { result += "?" + query }
        if let fragment = parts.fragment {
            result += "#" + PercentEncoding.encodeKeepingReserved(fragment, extra: ":@/?")
        }
        guard let url = URL(string: result), url.host?.isEmpty == false else {
            throw CourierError(.invalidURL, "\(WireValidation.quoted(input)) is not a valid URL (check the host and port); write it as https://host[:port][/path].")
        }
        if let port = url.port, !(0...65535).contains(port) {
            throw CourierError(.invalidURL, "The URL \(WireValidation.quoted(input)) has the port \(port); ports run from 0 to 65535.")
        }
        return url
    }

    /// Whether `text` starts with `scheme ":"` (RFC 3986 §3.1). As in RFC 3986 §4.2, a relative
    /// path whose first segment holds a colon must be written `./a:b` or `/a:b`.
    static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }

    static func rejectControlCharacters(in text: String, input: String) throws(CourierError) {
        for scalar in text.unicodeScalars where scalar.value < 0x20 || scalar.value == 0x7F {
            throw CourierError(.invalidURL, "The URL or path \(WireValidation.quoted(input)) contains a control character (CR, LF, NUL…); remove it or percent-encode it if it is data.")
        }
    }

    /// RFC 3986 §5.2.4.
    static func removeDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
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
