import Foundation

extension HTTPCache {
    /// Answers a request with a `Range` (RFC 9111 §3.3, §3.4): from a complete stored `200`, or
    /// from a stored part that holds the range, either usable without asking the server, cut to
    /// the range (`206`); otherwise the request goes to the server as it is, and a `206` it
    /// answers is stored as a part, joined to the part already stored when both carry the same
    /// strong entity tag, and kept as a complete response once the parts cover it. A `Range` of
    /// several ranges or of another unit, one on HEAD, and one with conditions of the
    /// application's, always go to the server.
    func answerRange(_ request: CourierHTTPRequest, identity: String?, load: @escaping Load) async throws -> CourierResponse {
        let ranges = request.headers.values(for: "Range")
        guard request.method == .get, ranges.count == 1, let range = RangeRequest(ranges[0]),
            RequestConditions(request.headers) == nil
        else { return try await load(request) }
        var whole = request
        whole.headers.remove(name: "Range")
        let lookup = Lookup(whole, identity: identity, configuration: configuration)
        if request.cachePolicy != .reload {
            if let entry = await matchingEntries(for: lookup).first, let answer = cut(entry, to: range, for: request, lookup: lookup) {
                return answer
            }
            if let part = await storedPart(for: lookup), let answer = cut(part, to: range, for: request, lookup: lookup) {
                return answer
            }
        }
        if request.cachePolicy == .onlyIfCached || lookup.directives.onlyIfCached { return HTTPCache.gatewayTimeout(for: request) }
        let requestDate = configuration.now()
        let response = try await load(request)
        await storePart(response, for: lookup, requestDate: requestDate, responseDate: configuration.now())
        return response
    }

    /// `entry` (a complete `200` or a stored part) cut to `range` for `request`, when the cache
    /// may deliver it without asking the server and it holds the bytes asked for.
    private func cut(_ entry: CourierCacheEntry, to range: RangeRequest, for request: CourierHTTPRequest, lookup: Lookup) -> CourierResponse? {
        let (decision, freshness, control) = decide(entry, for: lookup)
        guard case .serve(let stale) = decision else { return nil }
        return range.partial(of: serve(entry, to: request, age: freshness.age, source: stale ? .stale : .cache, control: control))
    }

    /// Answers a GET for which only a part from the first byte is stored: asks the server for
    /// the rest (`Range` from the part's end, with `If-Range` and the part's strong entity tag)
    /// and delivers the whole, stored as the complete `200`. A `200` (the representation
    /// changed) is delivered and stored as usual; any other answer drops the part and the
    /// request is sent again without a range.
    func complete(_ part: CourierCacheEntry, for lookup: Lookup, load: Load) async throws -> CourierResponse {
        guard let (held, _) = PartJoin.extent(part), held.lowerBound == 0, let tag = part.headers["ETag"],
            let parsed = EntityTag(tag), !parsed.isWeak
        else { return try await fetch(lookup, entries: [], load: load) }
        var rest = lookup.request
        rest.headers.set(name: "Range", value: "bytes=\(held.upperBound + 1)-")
        rest.headers.set(name: "If-Range", value: tag)
        let requestDate = configuration.now()
        var response = try await load(rest)
        response.request = lookup.request
        let responseDate = configuration.now()
        if response.status == 200 {
            await store(response, for: lookup, requestDate: requestDate, responseDate: responseDate)
            return response
        }
        if response.status == 206, response.redirects.isEmpty,
            let variant = CacheKey.variant(request: lookup.request.headers, response: response.headers),
            let joined = PartJoin.join(
                older: part,
                newer: partEntry(response, for: lookup, variant: variant, requestDate: requestDate, responseDate: responseDate)),
            let whole = PartJoin.complete(joined, variant: variant)
        {
            if !lookup.directives.noStore,
                Storability.canStore(
                    status: 200, headers: whole.headers, request: lookup.request, fixedLifetime: lookup.fixesLifetime, audience: lookup.audience
                )
            {
                await write(whole)
            }
            try? await storage.removeEntry(forKey: part.key, variant: part.variant)
            var delivered = serve(whole, to: lookup.request, age: 0, source: .network)
            delivered.headers.remove(name: "Age")
            delivered.timing = response.timing
            return delivered
        }
        try? await storage.removeEntry(forKey: part.key, variant: part.variant)
        return try await fetch(lookup, entries: [], load: load)
    }

    /// The part entry for a `206` to `lookup`, of the representation whose variant is `variant`.
    private func partEntry(_ response: CourierResponse, for lookup: Lookup, variant: String, requestDate: Date, responseDate: Date) -> CourierCacheEntry {
        CourierCacheEntry(
            key: lookup.key, variant: HTTPCache.partVariant(variant), status: 206, reasonPhrase: response.reasonPhrase,
            headers: Storability.storedHeaders(response.headers), body: response.body, requestDate: requestDate, responseDate: responseDate,
            tags: lookup.tags(for: response.headers), protocolVersion: response.protocolVersion
        )
    }

    /// The variant a stored part is filed under: the variant of its representation, marked so
    /// that no computed variant equals it and only range requests find it.
    static func partVariant(_ variant: String) -> String { variant + "\n\u{0}part" }

    /// The stored part of `lookup`'s representation, if any.
    func storedPart(for lookup: Lookup) async -> CourierCacheEntry? {
        guard let stored = try? await storage.entries(forKey: lookup.key) else { return nil }
        return stored.first { entry in
            entry.status == 206 && lookup.policy.accepts(entry)
                && CacheKey.variant(request: lookup.request.headers, response: entry.headers).map(HTTPCache.partVariant) == entry.variant
        }
    }

    /// Stores a `206` the server answered to a range request, if it may be stored as its `200`
    /// would be and its `Content-Range` (one range, with the complete length) matches its body.
    func storePart(_ response: CourierResponse, for lookup: Lookup, requestDate: Date, responseDate: Date) async {
        guard response.status == 206, response.redirects.isEmpty, !lookup.directives.noStore,
            ContentRange.extent(of: response.headers, bodyCount: response.body.count) != nil,
            !RangeRequest.isContentCoded(response.headers),
            Storability.canStore(
                status: 200, headers: response.headers, request: lookup.request, fixedLifetime: lookup.fixesLifetime, audience: lookup.audience
            ),
            let variant = CacheKey.variant(request: lookup.request.headers, response: response.headers)
        else { return }
        var part = partEntry(response, for: lookup, variant: variant, requestDate: requestDate, responseDate: responseDate)
        if let stored = await storedPart(for: lookup), let joined = PartJoin.join(older: stored, newer: part) { part = joined }
        guard let complete = PartJoin.complete(part, variant: variant) else {
            await write(part)
            return
        }
        await write(complete)
        try? await storage.removeEntry(forKey: part.key, variant: part.variant)
    }
}
