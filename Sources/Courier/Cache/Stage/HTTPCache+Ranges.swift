import Foundation

extension HTTPCache {
    /// Answers a request with a `Range`: from a complete stored `200` the request may use
    /// without asking the server, cut to the range (`206`); otherwise the request goes to the
    /// server as it is, and nothing of its answer is stored. A `Range` of several ranges or of
    /// another unit, one on HEAD, and one with conditions of the application's, always go to
    /// the server.
    func answerRange(_ request: HTTPRequest, identity: String?, load: @escaping Load) async throws -> Response {
        let ranges = request.headers.values(for: "Range")
        guard request.method == .get, ranges.count == 1, let range = RangeRequest(ranges[0]),
            RequestConditions(request.headers) == nil
        else { return try await load(request) }
        var whole = request
        whole.headers.remove(name: "Range")
        let lookup = Lookup(whole, identity: identity, configuration: configuration)
        let entries: [CacheEntry] = if request.cachePolicy == .reload { [] } else { await matchingEntries(for: lookup) }
        if let entry = entries.first {
            let control = CacheControl(entry.headers)
            let freshness = Freshness(entry, now: configuration.now(), heuristicLimit: heuristicLimit, control: control)
            let decision = CacheDecision.decide(
                headers: entry.headers, tags: entry.tags, freshness: freshness, directives: lookup.directives,
                policy: request.cachePolicy, control: control
            )
            if case .serve(let stale) = decision,
                let partial = range.partial(of: serve(entry, to: request, age: freshness.age, source: stale ? .stale : .cache, control: control))
            {
                return partial
            }
        }
        if request.cachePolicy == .onlyIfCached || lookup.directives.onlyIfCached { return HTTPCache.gatewayTimeout(for: request) }
        return try await load(request)
    }
}
