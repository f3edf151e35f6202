import Courier
import Foundation
import NIOCore
import NIOPosix

/// A cheap check that a host answers again: a TCP connection to it, or a request to a health
/// URL. The queue probes an unreachable host with backoff instead of sending its requests.
struct ReachabilityProbe: Sendable {
    let healthURL: URL?
    let timeout: Duration
    let client: CourierClient

    /// Whether the host of `url` (or the health URL) answers.
    func check(_ url: URL) async -> Bool {
        if let healthURL {
            let request = CourierHTTPRequest(method: .get, url: healthURL, timeout: timeout)
            return (try? await client.sendOnce(request)) != nil
        }
        guard let host = url.host else { return false }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
        do {
            let channel = try await bootstrap.connect(toHost: host, port: port).get()
            try? await channel.close()
            return true
        } catch {
            return false
        }
    }
}
