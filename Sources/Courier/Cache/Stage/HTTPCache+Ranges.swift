import Foundation

extension HTTPCache {
    /// Answers a request with a `Range` (RFC 9111 §3.3, §3.4): from a complete stored `200`, or
    /// from a stored part that holds the range, either usable without asking the server, cut to
    /// the range (`206`); otherwise the request goes to the server as it is, and a `206` it
    /// answers is stored as a part, joined to the part already stored when both carry the same
    /// strong entity tag, and kept as a complete response once the parts cover it. A `Range` of
    /// several ranges or of another unit, one on HEAD, and one with conditions of the
    /// application's, always go to the server.
    func answerRange(_ request: HTTPRequest, identity: String?, load: @escaping Load) async throws -> Response {
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
    private func cut(_ entry: CacheEntry, to range: RangeRequest, for request: HTTPRequest, lookup: Lookup) -> Response? {
        let control = CacheControl(entry.headers)
        let freshness = Freshness(entry, now: configuration.now(), heuristicLimit: heuristicLimit, control: control)
        let decision = CacheDecision.decide(
            headers: entry.headers, tags: entry.tags, freshness: freshness, directives: lookup.directives,
            policy: request.cachePolicy, control: control
        )
        guard case .serve(let stale) = decision else { return nil }
        return range.partial(of: serve(entry, to: request, age: freshness.age, source: stale ? .stale : .cache, control: control))
    }

    /// The variant a stored part is filed under: the variant of its representation, marked so
    /// that no computed variant equals it and only range requests find it.
    static func partVariant(_ variant: String) -> String { variant + "\n\u{0}part" }

    /// The stored part of `lookup`'s representation, if any.
    func storedPart(for lookup: Lookup) async -> CacheEntry? {
        guard let stored = try? await storage.entries(forKey: lookup.key) else { return nil }
        return stored.first { entry in
            entry.status == 206 && lookup.policy.accepts(entry)
                && CacheKey.variant(request: lookup.request.headers, response: entry.headers).map(HTTPCache.partVariant) == entry.variant
        }
    }

    /// Stores a `206` the server answered to a range request, if it may be stored as its `200`
    /// would be and its `Content-Range` (one range, with the complete length) matches its body.
    func storePart(_ response: Response, for lookup: Lookup, requestDate: Date, responseDate: Date) async {
        guard response.status == 206, response.redirects.isEmpty, !lookup.directives.noStore,
            let contentRange = response.headers["Content-Range"].flatMap(ContentRange.init), let held = contentRange.range,
            contentRange.total != nil, Int64(response.body.count) == held.count,
            !RangeRequest.isContentCoded(response.headers),
            Storability.canStore(status: 200, headers: response.headers, request: lookup.request, fixedLifetime: lookup.policy.fixedLifetime != nil),
            let variant = CacheKey.variant(request: lookup.request.headers, response: response.headers)
        else { return }
        var part = CacheEntry(
            key: lookup.key, variant: HTTPCache.partVariant(variant), status: 206, reasonPhrase: response.reasonPhrase,
            headers: Storability.storedHeaders(response.headers), body: response.body, requestDate: requestDate, responseDate: responseDate,
            tags: lookup.policy.tags(for: response.headers), protocolVersion: response.protocolVersion
        )
        if let stored = await storedPart(for: lookup), let joined = PartJoin.join(older: stored, newer: part) { part = joined }
        guard let complete = PartJoin.complete(part, variant: variant) else {
            await write(part)
            return
        }
        await write(complete)
        try? await storage.removeEntry(forKey: part.key, variant: part.variant)
    }
}

/// Joining stored parts of one representation (RFC 9111 §3.4).
enum PartJoin {
    /// The bytes a stored part holds, and the complete length.
    static func extent(_ entry: CacheEntry) -> (held: ClosedRange<Int64>, total: Int64)? {
        guard let contentRange = entry.headers["Content-Range"].flatMap(ContentRange.init), let held = contentRange.range,
            let total = contentRange.total, Int64(entry.body.count) == held.count
        else { return nil }
        return (held, total)
    }

    /// `older` and `newer` as one part, with `newer`'s fields and its bytes where they overlap;
    /// `nil` unless both carry the same strong entity tag, have the same complete length, and
    /// touch or overlap.
    static func join(older: CacheEntry, newer: CacheEntry) -> CacheEntry? {
        guard let oldTag = older.headers["ETag"].flatMap(EntityTag.init), let newTag = newer.headers["ETag"].flatMap(EntityTag.init),
            oldTag.matchesStrongly(newTag), let old = extent(older), let new = extent(newer), old.total == new.total,
            new.held.lowerBound <= old.held.upperBound + 1, old.held.lowerBound <= new.held.upperBound + 1
        else { return nil }
        let held = min(old.held.lowerBound, new.held.lowerBound)...max(old.held.upperBound, new.held.upperBound)
        var body = Data(count: Int(held.count))
        body.replaceSubrange(Int(old.held.lowerBound - held.lowerBound)..<Int(old.held.upperBound - held.lowerBound + 1), with: older.body)
        body.replaceSubrange(Int(new.held.lowerBound - held.lowerBound)..<Int(new.held.upperBound - held.lowerBound + 1), with: newer.body)
        var joined = newer
        joined.body = body
        joined.headers.set(name: "Content-Range", value: "bytes \(held.lowerBound)-\(held.upperBound)/\(new.total)")
        joined.headers.set(name: "Content-Length", value: String(body.count))
        return joined
    }

    /// `part` as the complete `200` under `variant`, when it holds every byte.
    static func complete(_ part: CacheEntry, variant: String) -> CacheEntry? {
        guard let (held, total) = extent(part), held.lowerBound == 0, held.upperBound == total - 1 else { return nil }
        var complete = part
        complete.variant = variant
        complete.status = 200
        complete.reasonPhrase = "OK"
        complete.headers.remove(name: "Content-Range")
        complete.headers.set(name: "Content-Length", value: String(total))
        return complete
    }
}
