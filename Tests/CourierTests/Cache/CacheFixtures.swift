import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import Courier

/// A present that moves only when a test moves it, for the cache's freshness arithmetic.
final class ManualNow: Sendable {
    private let value: NIOLockedValueBox<Date>

    /// 2027-01-15 08:00:00 UTC, far from any real clock a test could read.
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    init(_ start: Date = ManualNow.start) { value = NIOLockedValueBox(start) }

    var date: Date { value.withLockedValue { $0 } }

    func advance(_ seconds: TimeInterval) {
        value.withLockedValue { $0 += seconds }
    }

    /// The present as an HTTP date, moved by `offset` seconds.
    func http(_ offset: TimeInterval = 0) -> String {
        HTTPDate.format(date.addingTimeInterval(offset))
    }
}

/// A client on `server` with a memory cache whose present is `now`.
func withCachingClient<T>(
    _ server: TestServer,
    now: ManualNow = ManualNow(),
    storage: any CacheStorage = MemoryCacheStorage(),
    configure: (inout ClientConfiguration) -> Void = { _ in },
    _ body: (CourierClient, ManualNow) async throws -> T
) async throws -> T {
    try await withClient(server) { configuration in
        var cache = CacheConfiguration(storage: storage)
        cache.now = { now.date }
        configuration.cache = cache
        configure(&configuration)
    } _: { client in
        try await body(client, now)
    }
}

/// Starts a test server and a caching client on it (see ``withCachingClient(_:now:storage:configure:_:)``),
/// runs `body`, and stops both.
func withCache<T>(
    configure: (inout ClientConfiguration) -> Void = { _ in },
    _ body: (TestServer, CourierClient, ManualNow) async throws -> T
) async throws -> T {
    try await withServer { server in
        try await withCachingClient(server, configure: configure) { client, now in try await body(server, client, now) }
    }
}

/// A `/cacheable` path with the given query, percent-encoded, and a key unique to the test.
func cacheable(_ items: [(String, String)], key: String = #function) -> String {
    var components = URLComponents()
    components.queryItems = ([("key", key)] + items).map { URLQueryItem(name: $0.0, value: $0.1) }
    let query = components.percentEncodedQuery ?? ""
    return "/cacheable?" + query.replacingOccurrences(of: "+", with: "%2B")
}

/// Sends a GET for `path` with `policy` and `headers`, accepting any status.
func fetch(
    _ client: CourierClient, _ path: String, policy: CachePolicy = .default, headers: Headers = Headers(),
    method: CourierHTTPMethod = .get, appPolicy: AppCachePolicy? = nil
) async throws -> CourierResponse {
    var request = CourierRequest<CourierResponse>(method: method, path: path)
    request.cachePolicy = policy
    request.headers = headers
    request.validators = []
    request.appCachePolicy = appPolicy
    return try await client.send(request)
}

extension CourierResponse {
    /// The body as text (`hit N` from `/cacheable`).
    var bodyText: String { String(decoding: body, as: UTF8.self) }
}

extension TestServer {
    /// The requests received for `path` (compared without percent-encoding).
    func requests(for path: String) -> [RecordedRequest] {
        receivedRequests.filter { $0.uri.removingPercentEncoding == path.removingPercentEncoding }
    }
}

/// Stores in `storage` bytes 0-9 of `path` (a `/range/30` resource whose entity tag is `tag`) as
/// a part, as if a range request had brought them, and returns it.
@discardableResult
func storeFirstTenBytes(of path: String, tag: String, on server: TestServer, in storage: MemoryCacheStorage, at now: ManualNow) async throws
    -> CourierCacheEntry
{
    let part = CourierCacheEntry(
        key: CacheKey.primary(for: server.url(path), identity: nil), variant: HTTPCache.partVariant(""), status: 206,
        headers: ["ETag": tag, "Cache-Control": "max-age=600", "Content-Range": "bytes 0-9/30"],
        body: Data(repeating: 1, count: 10), requestDate: now.date, responseDate: now.date
    )
    try await storage.store(part)
    return part
}
