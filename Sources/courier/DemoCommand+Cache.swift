import Courier
import CourierDemoServer
import Foundation

extension DemoSteps {
    /// The cache: a hit, a revalidation answered `304`, and cached-then-fresh, in a temporary
    /// folder removed at the end.
    func runCache() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        let storage = try FetchCacheOptions.storage(folder: folder.path)
        configuration.cache = CacheConfiguration(storage: storage)
        let asked = { server.receivedRequests.filter { $0.path == "/cacheable" }.count }
        try await CourierClient.withClient(configuration: configuration) { client in
            let before = asked()
            let fresh = CourierRequest<CourierResponse>(path: "/cacheable?cc=max-age=600&key=demo-hit")
            let first = try await client.response(for: fresh)
            let hit = try await client.response(for: fresh)
            say("first from the \(first.source), then from the \(hit.source) (Age \(hit.headers["Age"] ?? "0")): \"\(text(hit))\" both times, \(asked() - before) request to the server")

            let stale = CourierRequest<CourierResponse>(path: "/cacheable?cc=max-age=0&etag=v1&key=demo-revalidate")
            _ = try await client.response(for: stale)
            let revalidated = try await client.response(for: stale)
            let sent = server.receivedRequests.last?.header("If-None-Match") ?? "nothing"
            say("a stale entry is asked about with If-None-Match: \(sent); the server answered 304, so it is \(revalidated.source) with the stored body \"\(text(revalidated))\"")

            let feed = CourierRequest<CourierResponse>(path: "/cacheable?cc=max-age=600&key=demo-feed")
            _ = try await client.response(for: feed)
            var delivered: [String] = []
            for try await response in client.cachedThenFresh(feed) {
                delivered.append("\(response.source) \"\(text(response))\"")
            }
            say("cached-then-fresh delivered \(delivered.joined(separator: ", then "))")
        }
        let statistics = try await storage.statistics()
        say("the folder held \(statistics.entryCount) entries (\(statistics.totalBytes) bytes); it is removed now")
    }

    private func text(_ response: CourierResponse) -> String {
        String(decoding: response.body, as: UTF8.self)
    }
}
