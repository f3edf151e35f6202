import Foundation

/// What to do with a stored response that matches a request (RFC 9111 §4).
enum CacheDecision: Sendable, Hashable {
    /// Serve it without contacting the origin; `stale` when it is past its lifetime.
    case serve(stale: Bool)
    /// Serve it stale and revalidate it in the background (`stale-while-revalidate`).
    case serveStaleAndRevalidate
    /// Ask the origin whether it is still valid.
    case validate

    /// Decides for a stored response with `headers`, `freshness` and `tags`, and a request
    /// with `directives` and `policy`; `control` is the response's `Cache-Control`, when the
    /// caller has already read it.
    static func decide(
        headers: Headers, tags: [String: String], freshness: Freshness, directives: RequestDirectives, policy: CachePolicy,
        control: CacheControl? = nil
    ) -> CacheDecision {
        if policy == .returnCacheElseLoad || policy == .onlyIfCached { return .serve(stale: !freshness.isFresh) }
        let response = control ?? CacheControl(headers)
        let fixed = tags[AppCachePolicy.Tag.fixedLifetime] != nil
        // A bare no-cache always needs the origin; with field names it only strips them.
        if !fixed && response.contains("no-cache") && response.fieldNames("no-cache") == nil { return .validate }
        // RFC 8246: a fresh immutable response is not revalidated when the request asks for a
        // reload, whether by no-cache or by max-age (a browser's reload sends max-age=0). Only
        // CachePolicy.reload, which skips the lookup, gets past it.
        let immutable = !fixed && response.contains("immutable") && freshness.isFresh
        if directives.noCache && !immutable { return .validate }
        // A request's max-age=0 asks for validation even of a response that is zero seconds old.
        if !immutable, let maxAge = directives.control.seconds("max-age"), maxAge == 0 || freshness.age > TimeInterval(maxAge) {
            return .validate
        }
        if freshness.isFresh {
            let minFresh = directives.control.seconds("min-fresh").map(TimeInterval.init) ?? 0
            return freshness.remaining >= minFresh ? .serve(stale: false) : .validate
        }
        guard !fixed, !response.forbidsStale(shared: tags[AppCachePolicy.Tag.shared] != nil) else { return .validate }
        if let maxStale = directives.control.first("max-stale") {
            let limit = maxStale.argument == nil ? TimeInterval.infinity : TimeInterval(directives.control.seconds("max-stale") ?? 0)
            if freshness.staleness <= limit { return .serve(stale: true) }
        }
        if let window = response.seconds("stale-while-revalidate"), freshness.staleness <= TimeInterval(window) {
            return .serveStaleAndRevalidate
        }
        return .validate
    }

    /// Whether a stale response may be served when the origin failed or answered with a
    /// server error: `stale-if-error` of the response or the request covers its staleness,
    /// and neither `must-revalidate` nor a bare `no-cache` forbids it (RFC 5861 §4).
    static func mayServeOnError(entry: CourierCacheEntry, freshness: Freshness, directives: RequestDirectives) -> Bool {
        let response = CacheControl(entry.headers)
        guard !response.forbidsStale(shared: entry.tags[AppCachePolicy.Tag.shared] != nil),
            !(response.contains("no-cache") && response.fieldNames("no-cache") == nil)
        else { return false }
        let window = max(response.seconds("stale-if-error") ?? -1, directives.control.seconds("stale-if-error") ?? -1)
        return window >= 0 && freshness.staleness <= TimeInterval(window)
    }
}

extension CacheControl {
    /// Whether a response with these directives may never be served stale: `must-revalidate`;
    /// and, from a shared cache, `proxy-revalidate` or `s-maxage` (RFC 9111 §5.2.2.2, §5.2.2.8,
    /// §5.2.2.10).
    func forbidsStale(shared: Bool) -> Bool {
        contains("must-revalidate") || (shared && (contains("proxy-revalidate") || contains("s-maxage")))
    }
}

/// Conditional requests and the handling of their `304` answers (RFC 9111 §4.3).
enum Revalidation {
    /// The validators for a conditional request: `If-None-Match` with the entity tags of
    /// every stored response, and `If-Modified-Since` with the chosen one's `Last-Modified`.
    static func conditionalHeaders(for chosen: CourierCacheEntry, among entries: [CourierCacheEntry]) -> Headers {
        var headers = Headers()
        var tags: [String] = []
        for entry in [chosen] + entries {
            if let tag = entry.headers["ETag"], !tags.contains(tag) { tags.append(tag) }
        }
        if !tags.isEmpty { headers.add(name: "If-None-Match", value: tags.joined(separator: ", ")) }
        if let modified = chosen.headers["Last-Modified"] { headers.add(name: "If-Modified-Since", value: modified) }
        return headers
    }

    /// The stored response a `304` with `headers` refers to (RFC 9111 §4.3.4): the most
    /// recent one whose entity tag matches strongly, else weakly, else the one with the same
    /// `Last-Modified`; when the `304` carries no validator, `chosen`, the response the
    /// conditional request was made for.
    static func select(for headers: Headers, among entries: [CourierCacheEntry], chosen: CourierCacheEntry) -> CourierCacheEntry? {
        if let tag = headers["ETag"].flatMap(EntityTag.init) {
            let tagged = entries.filter { $0.headers["ETag"].flatMap(EntityTag.init) != nil }
            if let strong = tagged.first(where: { EntityTag($0.headers["ETag"]!)!.matchesStrongly(tag) }) { return strong }
            return tagged.first { EntityTag($0.headers["ETag"]!)!.matchesWeakly(tag) }
        }
        if let modified = headers["Last-Modified"] {
            return entries.first { $0.headers["Last-Modified"] == modified }
        }
        return chosen
    }
}
