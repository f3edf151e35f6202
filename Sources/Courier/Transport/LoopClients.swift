import AsyncHTTPClient
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The AsyncHTTPClient instances of one transport: one on all the shared event loops, for
/// callers anywhere else, and one per loop for callers that run on that loop, made when the
/// first of them sends.
///
/// AsyncHTTPClient runs a request's callbacks on the loop the request names, and hops there
/// from the loop that owns the connection whenever the two differ: a cross-thread wake-up for
/// the head, the body and the end of a response. An instance whose only loop is the caller's
/// owns connections on that loop alone, so that the connection, the callbacks and the resumed
/// caller (a task whose executor preference is the loop, see ``Client/makeTaskExecutor()``)
/// share one thread. Each instance keeps its own pool, under the same per-host limit.
final class LoopClients: Sendable {
    private struct PerLoop {
        var clients: [ObjectIdentifier: HTTPClient] = [:]
        var isShutDown = false
    }

    /// The instance on all the shared loops.
    let shared: HTTPClient
    private let loops: [any EventLoop]
    private let perLoop = NIOLockedValueBox(PerLoop())
    private let configuration: HTTPClient.Configuration
    private let logger: Logger

    init(configuration: HTTPClient.Configuration, logger: Logger) {
        let group = MultiThreadedEventLoopGroup.singleton
        self.shared = HTTPClient(eventLoopGroup: group, configuration: configuration, backgroundActivityLogger: logger)
        var loops: [any EventLoop] = []
        for loop in group.makeIterator() { loops.append(loop) }
        self.loops = loops
        self.configuration = configuration
        self.logger = logger
    }

    /// The instance for a request sent from the current thread, and the loop preference to
    /// send it with.
    func client() -> (HTTPClient, HTTPClient.EventLoopPreference) {
        guard let current = MultiThreadedEventLoopGroup.currentEventLoop, loops.contains(where: { $0 === current }) else {
            return (shared, .indifferent)
        }
        let key = ObjectIdentifier(current)
        let client = perLoop.withLockedValue { state -> HTTPClient in
            if let client = state.clients[key] { return client }
            // After shutdown, the shared instance refuses the request as shut down.
            guard !state.isShutDown else { return shared }
            let client = HTTPClient(eventLoopGroup: current, configuration: configuration, backgroundActivityLogger: logger)
            state.clients[key] = client
            return client
        }
        return (client, .delegate(on: current))
    }

    /// Shuts every instance down.
    func shutdown() async throws {
        let clients = perLoop.withLockedValue { state in
            state.isShutDown = true
            return Array(state.clients.values)
        }
        var failure: (any Error)?
        for client in clients + [shared] {
            do { try await client.shutdown() } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }
}
