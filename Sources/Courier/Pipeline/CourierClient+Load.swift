import Foundation

extension CourierClient {
    /// The end of the path for a buffered request: answers it from the cache where it may, and
    /// otherwise from the network (see ``HTTPCache``). The cache sits before the scheduler: a
    /// hit never waits for a slot.
    nonisolated(nonsending) func respond(to request: CourierHTTPRequest) async throws -> CourierResponse {
        guard let cache else {
            if let answer = HTTPCache.answerWithoutCache(request) { return answer }
            return try await load(request)
        }
        let identity = try await credentialIdentity(for: request)
        return try await cache.respond(to: request, identity: identity) { try await self.load($0) }
    }

    /// Who a request speaks for, to keep the cache entries of different credentials apart: its
    /// own `Authorization`, else the credentials configured for its origin, and the SHA-256 of
    /// the client certificate it shows its host (its own TLS policy's, else the client's; https
    /// only); `nil` for none of these.
    func credentialIdentity(for request: CourierHTTPRequest) async throws -> String? {
        let credentials: String?
        if let authorization = request.headers["Authorization"] {
            credentials = "authorization:" + authorization
        } else {
            credentials = try await (request.authenticator ?? authenticator)?.identity(for: request.url)
        }
        var certificate: String?
        if request.url.scheme?.lowercased() == "https", let host = request.url.host,
            let identity = (request.connection.tls ?? configuration.tls).identity(for: host)
        {
            certificate = "certificate:" + (try identity.fingerprint())
        }
        let parts = [credentials, certificate].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: "\n")
    }

    /// Loads a request from the network, its body collected; identical GET and HEAD requests
    /// in flight at the same time share one exchange (see
    /// ``ClientConfiguration/coalescesRequests``).
    nonisolated(nonsending) func load(_ request: CourierHTTPRequest) async throws -> CourierResponse {
        guard configuration.coalescesRequests, let key = CoalescingKey(request) else { return try await collect(request) }
        var response = try await coalescer.response(for: key, exchange: .init(request: request, client: self))
        if response.redirects.isEmpty { response.request = request }
        return response
    }
}
