import Foundation

extension CourierClient {
    /// Delivers the stored response for `request` at once, if there is one (source
    /// ``CourierResponse/Source/cache`` when fresh, ``CourierResponse/Source/stale`` otherwise), then the
    /// network's, validated with the stored response's validators (source
    /// ``CourierResponse/Source/revalidated`` or ``CourierResponse/Source/network``).
    ///
    /// ```swift
    /// for try await response in client.cachedThenFresh(CourierRequest<CourierResponse>(path: "/feed")) {
    ///     show(response)
    /// }
    /// ```
    ///
    /// Without a cache, only the network's response is delivered. Cancelling the iterating
    /// task cancels the network request.
    public func cachedThenFresh<Value>(_ request: CourierRequest<Value>) -> CachedThenFreshResponses {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: CourierResponse.self)
        var fresh = request
        fresh.cachePolicy = .cachedThenFresh
        let task = Task {
            do {
                if cache != nil, let cached = try await cachedResponse(for: request) { continuation.yield(cached) }
                continuation.yield(try await perform(fresh, id: CourierRequestID(), state: nil, decodes: false).response)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return CachedThenFreshResponses(stream: stream)
    }

    /// The stored response for `request`, whatever its age, without contacting the network;
    /// `nil` when there is none.
    ///
    /// - Throws: ``CourierError/Kind/cacheUnavailable`` when the client has no cache.
    public func cachedResponse<Value>(for request: CourierRequest<Value>) async throws -> CourierResponse? {
        let (cache, lookup) = try await cacheLookup(for: request)
        guard let entry = await cache.matchingEntries(for: lookup).first else { return nil }
        let freshness = Freshness(entry, now: cache.configuration.now(), heuristicLimit: cache.heuristicLimit)
        return cache.serve(entry, to: lookup.request, age: freshness.age, source: freshness.isFresh ? .cache : .stale)
    }

    /// Stores `response` as the answer to `request`, whatever its header fields say
    /// (YTKRequest's `saveJsonResponseToCacheFile`); its freshness follows its fields and the
    /// application's cache policy.
    ///
    /// - Throws: ``CourierError/Kind/cacheUnavailable`` when the client has no cache, when the
    ///   response's `Vary` is `*`, or when the store fails.
    public func storeCachedResponse<Value>(_ response: CourierResponse, for request: CourierRequest<Value>) async throws {
        let (cache, lookup) = try await cacheLookup(for: request)
        let now = cache.configuration.now()
        guard let entry = cache.makeEntry(response, for: lookup, requestDate: now, responseDate: now) else {
            throw CourierError(.cacheUnavailable, "A response with \"Vary: *\" matches no request and cannot be stored; remove the field first.", url: lookup.request.url)
        }
        try await storageCall(url: lookup.request.url) { try await cache.storage.store(entry) }
    }

    /// Removes every stored response for `request`'s URL under its credentials.
    ///
    /// - Throws: ``CourierError/Kind/cacheUnavailable`` when the client has no cache or the
    ///   store fails.
    public func removeCachedResponse<Value>(for request: CourierRequest<Value>) async throws {
        let (cache, lookup) = try await cacheLookup(for: request)
        try await storageCall(url: lookup.request.url) { try await cache.storage.removeEntries(forKey: lookup.key) }
    }

    /// Removes every stored response.
    ///
    /// - Throws: ``CourierError/Kind/cacheUnavailable`` when the client has no cache or the
    ///   store fails.
    public func removeAllCachedResponses() async throws {
        let cache = try requireCache()
        try await storageCall(url: nil) { try await cache.storage.removeAll() }
    }

    /// Waits until the refreshes the cache started in the background (for
    /// `stale-while-revalidate`) have ended; ``shutdown()`` does this too.
    public func waitForCacheRefreshes() async {
        await cache?.background.waitForAll()
    }

    private func requireCache() throws(CourierError) -> HTTPCache {
        guard let cache else {
            throw CourierError(.cacheUnavailable, "The client has no cache; set ClientConfiguration.cache to a CacheConfiguration.")
        }
        return cache
    }

    /// The cache and the lookup `request` makes, as built by the client before its interceptors.
    private func cacheLookup<Value>(for request: CourierRequest<Value>) async throws -> (HTTPCache, HTTPCache.Lookup) {
        let cache = try requireCache()
        let built = try makeHTTPRequest(request, id: CourierRequestID())
        let identity = try await credentialIdentity(for: built)
        return (cache, HTTPCache.Lookup(built, identity: identity, configuration: cache.configuration))
    }

    private func storageCall(url: URL?, _ operation: () async throws -> Void) async throws {
        do {
            try await operation()
        } catch {
            throw CourierError(.cacheUnavailable, "The cache store failed: \(error); check its storage, or clear it.", url: url, underlyingError: error)
        }
    }
}

/// The responses ``CourierClient/cachedThenFresh(_:)`` delivers: the stored one, if any, then the
/// network's. Iterate it once.
public struct CachedThenFreshResponses: AsyncSequence, Sendable {
    /// A delivered response.
    public typealias Element = CourierResponse

    let stream: AsyncThrowingStream<CourierResponse, any Error>

    /// Creates the iterator.
    public func makeAsyncIterator() -> AsyncThrowingStream<CourierResponse, any Error>.Iterator {
        stream.makeAsyncIterator()
    }

    /// The last response delivered: the network's, for callers that want only it.
    public func last() async throws -> CourierResponse {
        var last: CourierResponse?
        for try await response in stream { last = response }
        guard let last else {
            throw CourierError(.cancelled, "No response was delivered because the request was cancelled.")
        }
        return last
    }
}
