import Foundation

extension CourierClient {
    /// The end of the path for a streamed request, as ``respond(to:)`` is for a buffered one:
    /// the cache answers it where it may, and otherwise the network does, its response handed
    /// to the sink's reader as it arrives.
    ///
    /// The cache takes part as it does for a buffered request (freshness, revalidation,
    /// `only-if-cached`, invalidation by unsafe methods, the request's ``CachePolicy``); what
    /// it answers itself reaches the reader whole, as one piece. A response from the network is
    /// stored once its reader has read it to its end within the request's
    /// ``CourierHTTPRequest/maximumBodySize``; one read in part, or larger, is not.
    nonisolated(nonsending) func respondStreaming<Result: Sendable>(to request: CourierHTTPRequest, sink: StreamSink<Result>) async throws -> CourierResponse {
        guard let cache else {
            if let answer = HTTPCache.answerWithoutCache(request) { return answer }
            return try await hops(request) { try await sink.consume($0) }
        }
        let identity = try await credentialIdentity(for: request)
        let response = try await cache.respond(
            to: request, identity: identity,
            load: { sent in try await self.streamedLoad(sent, asked: request, identity: identity, sink: sink, cache: cache) },
            // Nobody reads a revalidation the cache starts after it answered: it is collected.
            refresh: { try await self.load($0) }
        )
        // A response that failed on its way to the reader is the call's outcome, even where
        // the cache would have answered a failure with a stored response.
        if let failure = sink.failure { throw failure }
        return response
    }

    /// Sends `request` for the cache: hands its response to the sink's reader as it arrives
    /// and returns its head with the body the reader read, for the cache to store; or, when the
    /// cache changed the request (`asked` is what the application sent) to validate or
    /// complete what it holds and the answer is for the cache alone (304, 206, a server error
    /// it may answer with a stale response), returns it collected, unread by the reader.
    nonisolated(nonsending) private func streamedLoad<Result: Sendable>(
        _ request: CourierHTTPRequest, asked: CourierHTTPRequest, identity: String?, sink: StreamSink<Result>, cache: HTTPCache
    ) async throws -> CourierResponse {
        let forCache = ["If-None-Match", "If-Modified-Since", "Range"].contains {
            request.headers.values(for: $0) != asked.headers.values(for: $0)
        }
        let fixedLifetime = cache.configuration.policy.overridden(by: request.appCachePolicy).fixedLifetime != nil
        let audience = Storability.Audience(isShared: cache.configuration.isShared, identity: identity, request: request)
        return try await hops(request) { streamed in
            let status = streamed.head.status
            if sink.hasStarted || (forCache && (status == 304 || status == 206 || status >= 500)) {
                return try await streamed.collected(upTo: request.maximumBodySize)
            }
            let storable = Storability.canStore(
                status: status, headers: streamed.head.headers, request: request, fixedLifetime: fixedLifetime, audience: audience
            )
            let recorder = BodyRecorder(limit: storable ? request.maximumBodySize : 0)
            let body = streamed.body
            var head: CourierResponse
            do {
                head = try await sink.consume(StreamedResponse(head: streamed.head, body: storable ? body.recorded(by: recorder) : body))
            } catch {
                sink.fail(error)
                throw error
            }
            if storable, let bytes = recorder.wholeBody {
                head.body = bytes
                head.trailers = body.trailers ?? Headers()
            } else {
                head.lacksBody = true
            }
            return head
        }
    }
}
