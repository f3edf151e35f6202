import Foundation

/// Which responses a cache stores, and which of their header fields (RFC 9111 §3).
enum Storability {
    /// Whose cache stores a response.
    enum Audience: Sendable, Hashable {
        /// One user's (each credential's partition): RFC 9111's private cache.
        case `private`
        /// Every user's; `credentials` when the request carries some (RFC 9111 §3.5).
        case shared(credentials: Bool)

        /// The audience of a cache that `isShared` or not, for a request with `identity`.
        init(isShared: Bool, identity: String?, request: CourierHTTPRequest) {
            self = isShared ? .shared(credentials: identity != nil || request.headers.contains("Authorization")) : .private
        }

        var isShared: Bool { self != .private }
    }

    /// Status codes whose meaning the cache understands, for `must-understand` (RFC 9111 §5.2.2.3).
    static let understood: Set<Int> = [200, 203, 204, 300, 301, 302, 303, 307, 308, 404, 405, 410, 414, 501]

    /// Header fields that describe one connection and are never stored (RFC 9110 §7.6.1).
    static let hopByHop: Set<String> = [
        "connection", "proxy-connection", "keep-alive", "te", "transfer-encoding", "upgrade", "trailer",
        "proxy-authenticate", "proxy-authorization",
    ]

    /// Fields a `304` never replaces: the length and coding of the stored body, which the
    /// `304` does not carry (RFC 9111 §3.2).
    static let keptOnUpdate: Set<String> = ["content-length", "content-encoding", "content-range"]

    /// Whether a response with `status` and `headers` to `request` may be stored.
    ///
    /// - Parameters:
    ///   - fixedLifetime: an application asked to keep responses regardless of their header
    ///     fields; then any 2xx response to GET is stored unless the request said `no-store`
    ///     (or, in a shared cache, the response is for one user).
    ///   - audience: a shared cache never stores a response marked `private`, nor one to a
    ///     request with credentials unless the response says `public`, `s-maxage` or
    ///     `must-revalidate` (RFC 9111 §3.5).
    static func canStore(
        status: Int, headers: Headers, request: CourierHTTPRequest, fixedLifetime: Bool, audience: Audience = .private
    ) -> Bool {
        guard request.method == .get, !RequestDirectives(request).noStore else { return false }
        guard status >= 200, status != 206, status != 304 else { return false }
        let control = CacheControl(headers)
        if case .shared(let credentials) = audience {
            if control.contains("private") { return false }
            if credentials, !control.contains("public"), !control.contains("s-maxage"), !control.contains("must-revalidate") {
                return false
            }
        }
        if fixedLifetime { return (200..<300).contains(status) }
        if control.contains("must-understand") {
            guard understood.contains(status) else { return false }
        } else if control.contains("no-store") {
            return false
        }
        if varyNames(headers).contains("*") { return false }
        return control.contains("public") || control.contains("private") || control.contains("max-age")
            || (audience.isShared && control.contains("s-maxage")) || headers.contains("Expires")
            || Freshness.heuristicallyCacheable.contains(status)
    }

    /// The header fields to store: all but hop-by-hop fields and those `Connection` names.
    static func storedHeaders(_ headers: Headers) -> Headers {
        let excluded = connectionScoped(headers)
        return Headers(headers.pairs.filter { !excluded.contains($0.0.lowercased()) })
    }

    /// `stored` updated by the fields of a `304` or `HEAD` response (RFC 9111 §3.2): each field
    /// present in `update` replaces the stored one, except connection-scoped fields and
    /// ``keptOnUpdate``.
    static func updatedHeaders(_ stored: Headers, with update: Headers) -> Headers {
        let excluded = connectionScoped(update).union(keptOnUpdate)
        var result = stored
        var replaced: Set<String> = []
        for (name, value) in update.pairs where !excluded.contains(name.lowercased()) {
            if replaced.insert(name.lowercased()).inserted { result.remove(name: name) }
            result.add(name: name, value: value)
        }
        return result
    }

    /// The stored headers to serve without validation: fields that `no-cache="…"` names are
    /// removed (RFC 9111 §5.2.2.4).
    static func servedHeaders(_ headers: Headers, control: CacheControl? = nil) -> Headers {
        guard let names = (control ?? CacheControl(headers)).fieldNames("no-cache"), !names.isEmpty else { return headers }
        return Headers(headers.pairs.filter { !names.contains($0.0.lowercased()) })
    }

    /// Hop-by-hop field names and those listed in `Connection`, lower-cased.
    static func connectionScoped(_ headers: Headers) -> Set<String> {
        var names = hopByHop
        for value in headers.values(for: "Connection") {
            for name in FieldList.elements(value) { names.insert(name.lowercased()) }
        }
        return names
    }

    /// The field names a response's `Vary` lists, lower-cased, in order, each once.
    static func varyNames(_ headers: Headers) -> [String] {
        var names: [String] = []
        for value in headers.values(for: "Vary") {
            for name in FieldList.elements(value) {
                let lower = name.lowercased()
                if !names.contains(lower) { names.append(lower) }
            }
        }
        return names
    }

    /// Whether a response with `status` to `method` invalidates stored responses (RFC 9111
    /// §4.4): a non-error response to a method that is not safe.
    static func invalidates(method: CourierHTTPMethod, status: Int) -> Bool {
        ![.get, .head, .options, .trace].contains(method) && (200..<400).contains(status)
    }

    /// The URLs a response to an unsafe request invalidates: the target, and its `Location`
    /// and `Content-Location` when they are on the target's origin.
    static func invalidatedURLs(target: URL, headers: Headers) -> [URL] {
        var urls = [target]
        for name in ["Location", "Content-Location"] {
            guard let value = headers[name], let url = URL(string: value, relativeTo: target)?.absoluteURL,
                RedirectStateMachine.origin(of: url) == RedirectStateMachine.origin(of: target)
            else { continue }
            urls.append(url)
        }
        return urls
    }
}
