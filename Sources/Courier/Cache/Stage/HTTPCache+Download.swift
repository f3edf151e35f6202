import Foundation

extension HTTPCache {
    /// What the cache holds that a download can start from (see
    /// ``CourierClient/download(_:to:options:)-(CourierRequest<Value>,_,_)``).
    enum DownloadStart: Sendable {
        /// A stored `200` the cache may deliver without asking the server: the file, whole.
        case stored(CourierResponse)
        /// The first bytes of the representation: the download asks the server for the rest,
        /// on the condition (`If-Range`) that the representation is still the same.
        case prefix(StoredPrefix)
        /// Nothing usable is stored and the request may not go to the network
        /// (``CachePolicy/onlyIfCached``, `only-if-cached`): the cache's `504`.
        case unavailable(CourierResponse)
    }

    /// Stored bytes from the first one of a representation with a strong entity tag.
    struct StoredPrefix: Sendable {
        /// The bytes, from the first.
        var bytes: Data
        /// The representation's strong entity tag, sent as `If-Range`.
        var entityTag: String
        /// The representation's whole length.
        var total: Int64
        /// The stored fields (for the file name of a download into a folder).
        var headers: Headers

        /// The bytes a stored part or a stored `200` holds from the first, if it has a strong
        /// entity tag, is not content-coded and holds at least one byte.
        init?(_ entry: CourierCacheEntry) {
            guard let tag = entry.headers["ETag"], let parsed = EntityTag(tag), !parsed.isWeak,
                !RangeRequest.isContentCoded(entry.headers), !entry.body.isEmpty
            else { return nil }
            switch entry.status {
            case 200:
                total = Int64(entry.body.count)
            case 206:
                guard let (held, total) = PartJoin.extent(entry), held.lowerBound == 0 else { return nil }
                self.total = total
            default:
                return nil
            }
            bytes = entry.body
            entityTag = tag
            headers = entry.headers
        }
    }

    /// Where a download of `request` (after the interceptors, with credentials of `identity`)
    /// can start from the store: a `200` the cache may deliver as it is; otherwise the first
    /// bytes of a stored `200` or of a stored part; `nil` when the download goes to the server
    /// from the first byte.
    ///
    /// A download reads the cache and never writes it: files are often larger than the cache
    /// itself. The request's ``CachePolicy`` applies: `.reload` and `.noStore` skip the store,
    /// `.onlyIfCached` gets the cache's `504` when nothing whole may be delivered.
    func downloadStart(for request: CourierHTTPRequest, identity: String?) async -> DownloadStart? {
        guard request.method == .get, request.cachePolicy != .reload, request.cachePolicy != .noStore,
            !request.headers.contains("Range"), RequestConditions(request.headers) == nil,
            !HTTPCache.bypassFields.contains(where: { request.headers.contains($0) })
        else { return nil }
        let lookup = Lookup(request, identity: identity, configuration: configuration)
        var prefix: StoredPrefix?
        if let entry = await matchingEntries(for: lookup).first, entry.status == 200, !RangeRequest.isContentCoded(entry.headers) {
            let (decision, freshness, control) = decide(entry, for: lookup)
            if case .serve(let stale) = decision {
                return .stored(serve(entry, to: request, age: freshness.age, source: stale ? .stale : .cache, control: control))
            }
            prefix = StoredPrefix(entry)
        }
        if request.cachePolicy == .onlyIfCached || lookup.directives.onlyIfCached {
            return .unavailable(HTTPCache.gatewayTimeout(for: request))
        }
        if prefix == nil, let part = await storedPart(for: lookup) { prefix = StoredPrefix(part) }
        return prefix.map { .prefix($0) }
    }
}
