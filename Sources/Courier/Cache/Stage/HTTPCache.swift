import Foundation
import Logging

/// The cache stage of a client: answers requests from the store where RFC 9111 and the
/// request's ``CachePolicy`` allow, and otherwise asks `load` (the network exchange) and
/// stores what may be stored.
///
/// Only a response delivered without redirects is stored, under the URL requested: a
/// redirected request is answered by the network every time.
final class HTTPCache: Sendable {
    /// Sends a request to the network, following its redirects.
    typealias Load = @Sendable (CourierHTTPRequest) async throws -> CourierResponse

    let configuration: CacheConfiguration
    let background = BackgroundWork()
    let logger: Logger

    init(configuration: CacheConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        for warning in configuration.storage.permissionWarnings { logger.warning("\(warning)") }
    }

    var storage: any CacheStorage { configuration.storage }
    var heuristicLimit: TimeInterval { configuration.heuristicLimit.timeInterval }

    /// Request fields that make a request conditional on a state the cache cannot check; such
    /// requests bypass the cache. `If-None-Match` and `If-Modified-Since` are answered by the
    /// cache (``RequestConditions``), and so is a `Range` of one byte range (``RangeRequest``).
    static let bypassFields = ["If-Match", "If-Unmodified-Since", "If-Range"]

    /// What the cache needs to know about one request.
    struct Lookup: Sendable {
        var request: CourierHTTPRequest
        var key: String
        var policy: AppCachePolicy
        var directives: RequestDirectives
        /// Whose cache it is, and for a shared one whether the request carries credentials.
        var audience: Storability.Audience

        /// The lookup for `request` under `configuration`, for credentials with `identity`: a
        /// private cache files it under the identity's partition, a shared cache under none.
        init(_ request: CourierHTTPRequest, identity: String?, configuration: CacheConfiguration) {
            self.request = request
            audience = Storability.Audience(isShared: configuration.isShared, identity: identity, request: request)
            key = CacheKey.primary(for: request.url, identity: configuration.isShared ? nil : identity)
            policy = configuration.policy.overridden(by: request.appCachePolicy)
            directives = RequestDirectives(request)
        }

        /// Whether the application fixed the lifetime of what is stored.
        var fixesLifetime: Bool { policy.fixedLifetime != nil }

        /// The tags to store with a response that has `headers`: the policy's, and the mark
        /// of a shared cache's entry.
        func tags(for headers: Headers) -> [String: String] {
            var tags = policy.tags(for: headers)
            if audience.isShared { tags[AppCachePolicy.Tag.shared] = "1" }
            return tags
        }
    }

    /// Answers `request`, whose credentials have the identity `identity`.
    ///
    /// - Parameters:
    ///   - load: what sends the request the cache could not answer itself.
    ///   - refresh: what sends the revalidation the cache starts on its own after answering
    ///     (`stale-while-revalidate`), which nobody waits for; by default `load`.
    func respond(to request: CourierHTTPRequest, identity: String?, load: @escaping Load, refresh: Load? = nil) async throws -> CourierResponse {
        guard request.method == .get || request.method == .head else {
            let response = try await load(request)
            if Storability.invalidates(method: request.method, status: response.status) {
                await invalidate(after: response, to: request, identity: identity)
            }
            return response
        }
        if request.cachePolicy == .noStore || HTTPCache.bypassFields.contains(where: { request.headers.contains($0) }) {
            return try await load(request)
        }
        if request.headers.contains("Range") {
            return try await answerRange(request, identity: identity, load: load)
        }
        let lookup = Lookup(request, identity: identity, configuration: configuration)
        guard let conditions = RequestConditions(request.headers) else {
            return try await answer(lookup, load: load, refresh: refresh ?? load)
        }
        // The application validates a copy of its own (RFC 9111 §4.3.2): the cache finds the
        // response it would deliver without the conditions, revalidating or storing as usual,
        // and answers 304 when the application's copy is current. On a miss the application's
        // conditions go to the origin as they are.
        var unconditional = request
        for field in RequestConditions.fields { unconditional.headers.remove(name: field) }
        let plain = Lookup(unconditional, identity: identity, configuration: configuration)
        var response = try await answer(plain, forwarding: lookup, load: load, refresh: refresh ?? load)
        response.request = request
        return conditions.answer(response)
    }

    /// Answers a GET or HEAD `lookup` from the store or the network; on a miss, `forwarding`
    /// (the lookup as the application sent it) goes to the network when given. A revalidation
    /// started in the background goes by `refresh`.
    private func answer(_ lookup: Lookup, forwarding: Lookup? = nil, load: @escaping Load, refresh: @escaping Load) async throws -> CourierResponse {
        let request = lookup.request
        let entries: [CourierCacheEntry] = if request.cachePolicy == .reload { [] } else { await matchingEntries(for: lookup) }
        let onlyIfCached = request.cachePolicy == .onlyIfCached || lookup.directives.onlyIfCached
        guard let entry = entries.first else {
            if onlyIfCached { return HTTPCache.gatewayTimeout(for: request) }
            if forwarding == nil, request.method == .get, request.cachePolicy != .reload, let part = await storedPart(for: lookup) {
                return try await complete(part, for: lookup, load: load)
            }
            return try await fetch(forwarding ?? lookup, entries: [], load: load)
        }
        let (decision, freshness, control) = decide(entry, for: lookup)
        switch decision {
        case .serve(let stale):
            return serve(entry, to: request, age: freshness.age, source: stale ? .stale : .cache, control: control)
        case .serveStaleAndRevalidate:
            if !onlyIfCached {
                background.start { [self] in _ = try? await self.revalidate(lookup, chosen: entry, entries: entries, load: refresh) }
            }
            return serve(entry, to: request, age: freshness.age, source: .stale, control: control)
        case .validate:
            if onlyIfCached { return HTTPCache.gatewayTimeout(for: request) }
            return try await revalidate(lookup, chosen: entry, entries: entries, load: load)
        }
    }

    /// What to do with `entry` for `lookup`, with the entry's freshness and its `Cache-Control`,
    /// read once for the whole decision and for serving.
    func decide(_ entry: CourierCacheEntry, for lookup: Lookup) -> (CacheDecision, Freshness, CacheControl) {
        let control = CacheControl(entry.headers)
        let freshness = Freshness(entry, now: configuration.now(), heuristicLimit: heuristicLimit, control: control)
        let decision = CacheDecision.decide(
            headers: entry.headers, tags: entry.tags, freshness: freshness, directives: lookup.directives,
            policy: lookup.request.cachePolicy, control: control
        )
        return (decision, freshness, control)
    }

    /// The stored responses usable for a lookup, most recent first: entries stored under other
    /// application rules are removed, and those for other `Vary` values are skipped.
    func matchingEntries(for lookup: Lookup) async -> [CourierCacheEntry] {
        let stored: [CourierCacheEntry]
        do {
            stored = try await storage.entries(forKey: lookup.key)
        } catch {
            logger.debug("cache read failed; treated as a miss", metadata: ["error": "\(error)"])
            return []
        }
        var usable: [CourierCacheEntry] = []
        for entry in stored {
            if !lookup.policy.accepts(entry) {
                try? await storage.removeEntry(forKey: entry.key, variant: entry.variant)
            } else if CacheKey.matches(entry, request: lookup.request.headers) {
                usable.append(entry)
            }
        }
        return usable
    }

    /// A stored response as delivered: with its current `Age`, without the fields a
    /// `no-cache="…"` names unless it was just validated, and without a body for HEAD.
    /// `control` is the entry's `Cache-Control`, when the caller has already read it.
    func serve(
        _ entry: CourierCacheEntry, to request: CourierHTTPRequest, age: TimeInterval, source: CourierResponse.Source, control: CacheControl? = nil
    ) -> CourierResponse {
        var headers = source == .revalidated ? entry.headers : Storability.servedHeaders(entry.headers, control: control)
        headers.set(name: "Age", value: String(Int(min(age, TimeInterval(CacheControl.maximumDeltaSeconds)).rounded(.down))))
        return CourierResponse(
            status: entry.status, reasonPhrase: entry.reasonPhrase, headers: headers,
            body: request.method == .head ? Data() : entry.body, url: request.url, source: source, request: request,
            protocolVersion: entry.protocolVersion
        )
    }

    /// The answer to `request` on a client without a cache, when the request may not go to the
    /// network: `only-if-cached` (``CachePolicy/onlyIfCached``) gets the cache's `504`, since
    /// nothing can satisfy it (RFC 9111 §5.2.1.7); `nil` for any other request.
    static func answerWithoutCache(_ request: CourierHTTPRequest) -> CourierResponse? {
        request.cachePolicy == .onlyIfCached ? gatewayTimeout(for: request) : nil
    }

    /// The answer when nothing stored may be used and the network may not be asked, or could
    /// not be reached for a response that must be revalidated (RFC 9111 §5.2.1.7, §5.2.2.2).
    static func gatewayTimeout(for request: CourierHTTPRequest) -> CourierResponse {
        CourierResponse(status: 504, reasonPhrase: "Gateway Timeout", url: request.url, source: .cache, request: request)
    }
}
