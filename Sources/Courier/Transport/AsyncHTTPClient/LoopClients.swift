import AsyncHTTPClient
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The AsyncHTTPClient instances of one transport, and the event loop each request is sent
/// on: one instance on all the shared event loops, for callers anywhere else, and one per
/// loop for callers that run on that loop, made when the first of them sends.
///
/// AsyncHTTPClient runs a request's callbacks on the loop the request names, and hops there
/// from the loop that owns the connection whenever the two differ: a cross-thread wake-up for
/// the head, the body and the end of a response. So every request names a loop:
/// - a caller on one of the loops (a task whose executor preference is the loop, see
///   ``CourierClient/makeTaskExecutor()``) sends through the instance whose only loop is its own,
///   which owns connections on that loop alone: the connection, the callbacks and the resumed
///   caller share one thread. Each such instance keeps its own pool, under the same per-host
///   limit.
/// - a caller elsewhere sends through the shared instance, on the loop ``LoopBalancer``
///   chooses for the request's origin, which is where the pool most likely has an idle
///   connection for it.
final class LoopClients: Sendable {
    private struct PerLoop {
        var clients: [ObjectIdentifier: HTTPClient] = [:]
        var isShutDown = false
    }

    /// Where one request goes: an instance and the loop it runs the request's callbacks on.
    struct Route: Sendable {
        let client: HTTPClient
        let loop: any EventLoop
        /// The origin and loop number the balancer counted the request under, if it did.
        fileprivate let balanced: (origin: String, index: Int)?
        /// Whether the request is handed to AsyncHTTPClient on ``loop`` rather than where
        /// its caller runs: so when the loop is likely idle, which a request started from
        /// outside would wake up to three times (see ``CourierAsyncHTTPClientTransport/exchange``).
        /// A busy loop is left to take the request as AsyncHTTPClient hands it over, and the
        /// caller's thread does the work of starting it.
        let startsOnLoop: Bool

        var preference: HTTPClient.EventLoopPreference { .delegate(on: loop) }
    }

    /// The instance on all the shared loops.
    let shared: HTTPClient
    private let loops: GroupLoops
    private let balancer: LoopBalancer
    private let perLoop = NIOLockedValueBox(PerLoop())
    private let configuration: HTTPClient.Configuration
    private let logger: Logger

    init(configuration: HTTPClient.Configuration, logger: Logger) {
        let group = MultiThreadedEventLoopGroup.singleton
        self.shared = HTTPClient(eventLoopGroup: group, configuration: configuration, backgroundActivityLogger: logger)
        let loops = GroupLoops(group)
        self.loops = loops
        self.balancer = LoopBalancer(loopCount: loops.all.count)
        self.configuration = configuration
        self.logger = logger
    }

    /// Where `request`, sent from the current thread, goes. Pass it to ``release(_:)`` once
    /// the request has ended.
    func route(to request: CourierHTTPRequest) -> Route {
        callerRoute() ?? sharedRoute(to: request.origin)
    }

    /// The route of a caller that runs on one of the loops: the instance whose only loop is
    /// its own. `nil` for a caller elsewhere, whose route is ``sharedRoute(to:)``.
    func callerRoute() -> Route? {
        guard let current = loops.current else { return nil }
        let key = ObjectIdentifier(current)
        let client = perLoop.withLockedValue { state -> HTTPClient in
            if let client = state.clients[key] { return client }
            // After shutdown, the shared instance refuses the request as shut down.
            guard !state.isShutDown else { return shared }
            let client = HTTPClient(eventLoopGroup: current, configuration: configuration, backgroundActivityLogger: logger)
            state.clients[key] = client
            return client
        }
        return Route(client: client, loop: current, balanced: nil, startsOnLoop: true)
    }

    /// The route, on the shared instance, of a request to `origin` from a caller off the
    /// loops that starts now: on the current thread's loop when it is one of them (a request
    /// started where the exchange before it ended, on the connection that exchange freed),
    /// else on the loop ``LoopBalancer`` chooses.
    func sharedRoute(to origin: String) -> Route {
        if let index = loops.currentIndex {
            balancer.acquire(origin, on: index)
            return Route(client: shared, loop: loops.all[index], balanced: (origin, index), startsOnLoop: true)
        }
        let (index, wasIdle) = balancer.acquire(origin)
        return Route(client: shared, loop: loops.all[index], balanced: (origin, index), startsOnLoop: wasIdle)
    }

    /// The request sent along `route` has ended.
    func release(_ route: Route) {
        if let balanced = route.balanced { balancer.release(balanced.origin, loop: balanced.index) }
    }

    /// Shuts every instance down.
    func shutdown() async throws {
        let clients = perLoop.withLockedValue { state in
            state.isShutDown = true
            return Array(state.clients.values)
        }
        try await shutDownEach(clients + [shared]) { try await $0.shutdown() }
    }
}

/// Shuts every one of `items` down with `shutdown`, even after one fails; then throws the first
/// failure, if any.
func shutDownEach<Item>(_ items: [Item], _ shutdown: (Item) async throws -> Void) async throws {
    var failure: (any Error)?
    for item in items {
        do { try await shutdown(item) } catch { failure = failure ?? error }
    }
    if let failure { throw failure }
}
