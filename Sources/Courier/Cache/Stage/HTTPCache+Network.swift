import Foundation
import Logging

extension HTTPCache {
    /// Loads `lookup`'s request from the network and stores the response if it may be stored.
    func fetch(_ lookup: Lookup, entries: [CourierCacheEntry], load: Load) async throws -> CourierResponse {
        let requestDate = configuration.now()
        let response = try await load(lookup.request)
        let responseDate = configuration.now()
        if lookup.request.method == .head {
            await freshen(entries, with: response)
        } else {
            await store(response, for: lookup, requestDate: requestDate, responseDate: responseDate)
        }
        return response
    }

    /// Asks the origin whether `chosen` is still valid, with the validators of every entry.
    func revalidate(_ lookup: Lookup, chosen: CourierCacheEntry, entries: [CourierCacheEntry], load: Load) async throws -> CourierResponse {
        var conditional = lookup.request
        for field in Revalidation.conditionalHeaders(for: chosen, among: entries) {
            conditional.headers.set(name: field.name, value: field.value)
        }
        let requestDate = configuration.now()
        let response: CourierResponse
        do {
            response = try await load(conditional)
        } catch let error as CourierError where error.kind == .cancelled {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return try staleOnFailure(chosen, lookup: lookup, error: error)
        }
        let responseDate = configuration.now()
        if response.status >= 500 {
            let freshness = Freshness(chosen, now: responseDate, heuristicLimit: heuristicLimit)
            if CacheDecision.mayServeOnError(entry: chosen, freshness: freshness, directives: lookup.directives) {
                return serve(chosen, to: lookup.request, age: freshness.age, source: .stale)
            }
        }
        guard response.status == 304 else {
            var delivered = response
            delivered.request = lookup.request
            if lookup.request.method == .head {
                await freshen(entries, with: response)
            } else {
                await store(response, for: lookup, requestDate: requestDate, responseDate: responseDate)
            }
            return delivered
        }
        guard let selected = Revalidation.select(for: response.headers, among: entries, chosen: chosen) else {
            // The 304 names no stored response: ask again without conditions.
            return try await fetch(lookup, entries: entries, load: load)
        }
        var updated = selected
        updated.headers = Storability.updatedHeaders(selected.headers, with: response.headers)
        updated.requestDate = requestDate
        updated.responseDate = responseDate
        await write(updated)
        let age = Freshness(updated, now: responseDate, heuristicLimit: heuristicLimit).age
        return serve(updated, to: lookup.request, age: age, source: .revalidated)
    }

    /// What a revalidation that could not reach the origin delivers: the stale response where
    /// `stale-if-error` allows, `504` for a response that must be revalidated, the stale
    /// response when the server is unreachable and the application serves stale responses
    /// offline, and otherwise the failure itself.
    private func staleOnFailure(_ entry: CourierCacheEntry, lookup: Lookup, error: any Error) throws -> CourierResponse {
        let freshness = Freshness(entry, now: configuration.now(), heuristicLimit: heuristicLimit)
        if CacheDecision.mayServeOnError(entry: entry, freshness: freshness, directives: lookup.directives) {
            return serve(entry, to: lookup.request, age: freshness.age, source: .stale)
        }
        let control = CacheControl(entry.headers)
        if control.forbidsStale(shared: entry.tags[AppCachePolicy.Tag.shared] != nil) { return HTTPCache.gatewayTimeout(for: lookup.request) }
        if lookup.policy.servesStaleWhenOffline == true, Self.isUnreachable(error),
            !(control.contains("no-cache") && control.fieldNames("no-cache") == nil)
        {
            return serve(entry, to: lookup.request, age: freshness.age, source: .stale, control: control)
        }
        throw error
    }

    /// Whether `error` says the server could not be reached: a connection refused, reset or
    /// not opened, an unreachable host, a timeout.
    static func isUnreachable(_ error: any Error) -> Bool {
        guard let error = error as? CourierError else { return false }
        return error.kind == .connectionFailed || error.kind == .timeout
    }

    /// Stores `response` for `lookup` if it may be stored: never one that came through
    /// redirects, nor a body over the request's collected-body limit, nor a streamed one
    /// whose body was not read whole.
    func store(_ response: CourierResponse, for lookup: Lookup, requestDate: Date, responseDate: Date) async {
        guard response.redirects.isEmpty, !response.lacksBody, !lookup.directives.noStore, response.body.count <= lookup.request.maximumBodySize,
            Storability.canStore(
                status: response.status, headers: response.headers, request: lookup.request, fixedLifetime: lookup.fixesLifetime,
                audience: lookup.audience
            ),
            let entry = makeEntry(response, for: lookup, requestDate: requestDate, responseDate: responseDate)
        else { return }
        await write(entry)
    }

    /// The entry for `response` to `lookup`; `nil` when its `Vary` is `*`.
    func makeEntry(_ response: CourierResponse, for lookup: Lookup, requestDate: Date, responseDate: Date) -> CourierCacheEntry? {
        guard let variant = CacheKey.variant(request: lookup.request.headers, response: response.headers) else { return nil }
        return CourierCacheEntry(
            key: lookup.key, variant: variant, status: response.status, reasonPhrase: response.reasonPhrase,
            headers: Storability.storedHeaders(response.headers), body: response.body,
            requestDate: requestDate, responseDate: responseDate, tags: lookup.tags(for: response.headers),
            protocolVersion: response.protocolVersion
        )
    }

    /// Stores `entry`; a store that fails only costs a future miss.
    func write(_ entry: CourierCacheEntry) async {
        do {
            try await storage.store(entry)
        } catch {
            logger.debug("cache write failed", metadata: ["error": "\(error)"])
        }
    }

    /// Updates stored GET responses from a response to HEAD (RFC 9111 §4.3.5): the one its
    /// validators select takes its fields; when the validators show the stored one changed,
    /// it is removed.
    func freshen(_ entries: [CourierCacheEntry], with response: CourierResponse) async {
        guard (200..<300).contains(response.status), let newest = entries.first else { return }
        let validated = response.headers.contains("ETag") || response.headers.contains("Last-Modified")
        guard validated, let selected = Revalidation.select(for: response.headers, among: entries, chosen: newest) else {
            if validated { try? await storage.removeEntry(forKey: newest.key, variant: newest.variant) }
            return
        }
        var updated = selected
        updated.headers = Storability.updatedHeaders(selected.headers, with: response.headers)
        await write(updated)
    }

    /// Removes what a response to an unsafe request invalidates (RFC 9111 §4.4), in the
    /// request's partition and in the one without credentials.
    func invalidate(after response: CourierResponse, to request: CourierHTTPRequest, identity: String?) async {
        for url in Storability.invalidatedURLs(target: request.url, headers: response.headers) {
            for partition in Set([identity, nil]) {
                try? await storage.removeEntries(forKey: CacheKey.primary(for: url, identity: partition))
            }
        }
    }
}
