import CourierDemoServer
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A small in-process HTTP forward proxy, for tests.
///
/// It listens on `127.0.0.1`, port 0, and handles one request per connection: `CONNECT
/// host:port` opens a tunnel and relays bytes both ways until either side closes; an
/// absolute-form request (`GET http://host:port/path HTTP/1.1`) is forwarded to its origin in
/// origin form, without `Proxy-Authorization` and with `Connection: close`, and the answer is
/// relayed back. With ``Credentials``, a request without the matching `Proxy-Authorization:
/// Basic …` is answered 407 and the connection closed.
///
/// Every request head it receives is recorded in ``receivedRequests`` (credentials included,
/// so tests can check what reached the proxy); ``tunnels``, ``forwardedRequests`` and
/// ``refusedRequests`` count what it did.
public final class ForwardProxy: Sendable {
    /// The user name and password the proxy demands.
    public struct Credentials: Sendable {
        /// The user name.
        public var user: String
        /// The password.
        public var password: String

        /// Creates credentials.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }

        /// The `Proxy-Authorization` value that matches.
        var expectedHeader: String {
            "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
    }

    private let listener: LoopbackListener
    private let log: ProxyLog

    /// The TCP port the proxy listens on.
    public var port: Int { listener.port }

    private init(listener: LoopbackListener, log: ProxyLog) {
        self.listener = listener
        self.log = log
    }

    /// Starts a proxy on `127.0.0.1`, port 0; with `credentials`, it requires them; with
    /// `tls`, it is spoken to over TLS (an `https://` proxy), presenting that chain.
    public static func start(credentials: Credentials? = nil, tls: TestServerTLS? = nil) async throws -> ForwardProxy {
        let log = ProxyLog()
        let expected = credentials?.expectedHeader
        let context = try tls?.makeContext()
        let listener = try await LoopbackListener.bind { pipeline in
            if let context { try pipeline.addHandler(NIOSSLServerHandler(context: context)) }
            try pipeline.addHandler(ProxyFrontHandler(log: log, expectedAuthorization: expected))
        }
        return ForwardProxy(listener: listener, log: log)
    }

    /// Starts a proxy, runs `body` with it, and shuts the proxy down afterwards, whether
    /// `body` returned or threw.
    public static func withProxy<Result>(
        credentials: Credentials? = nil,
        tls: TestServerTLS? = nil,
        _ body: (ForwardProxy) async throws -> Result
    ) async throws -> Result {
        try await scoped(try await ForwardProxy.start(credentials: credentials, tls: tls), shutdown: { try await $0.shutdown() }, body)
    }

    /// Every request head received (CONNECT and absolute-form), in arrival order.
    public var receivedRequests: [RecordedRequest] { log.snapshot.requests }
    /// The tunnels opened with `CONNECT`.
    public var tunnels: Int { log.snapshot.tunnels }
    /// The absolute-form requests forwarded to their origin.
    public var forwardedRequests: Int { log.snapshot.forwarded }
    /// The requests answered 407 for missing or wrong credentials.
    public var refusedRequests: Int { log.snapshot.refused }

    /// Stops listening and closes every open client connection.
    public func shutdown() async throws {
        try await listener.shutdown()
    }
}

/// What a ``ForwardProxy`` saw and did.
final class ProxyLog: Sendable {
    struct Snapshot {
        var requests: [RecordedRequest] = []
        var tunnels = 0
        var forwarded = 0
        var refused = 0
    }

    private let state = NIOLockedValueBox(Snapshot())

    var snapshot: Snapshot { state.withLockedValue { $0 } }

    func update(_ change: (inout Snapshot) -> Void) {
        state.withLockedValue(change)
    }
}
