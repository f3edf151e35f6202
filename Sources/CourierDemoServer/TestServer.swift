import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// An in-process HTTP/1.1 server with httpbin-like routes, for tests and for `courier demo`.
///
/// The server listens on `127.0.0.1` on an ephemeral port and runs on
/// `MultiThreadedEventLoopGroup.singleton`. Persistent (keep-alive) connections and pipelining are supported.
/// Every request is recorded in ``receivedRequests`` before it is answered.
///
/// Routes (JSON responses unless stated otherwise):
/// - `/get`, `/post`, `/put`, `/patch`, `/delete` (their method only, else 405), `/anything[/...]` (any method):
///   echo of `method`, `url`, `path`, `args`, `headers`, `data`, `form`, `files`, `json`, `origin`.
/// - `/headers`, `/user-agent`, `/ip`, `/count`, `/json`, `/html`, `/xml`, `/close`.
/// - `/flaky?failures=N&status=S&retry_after=V&key=K&then_delay=D`: fails N times per URL, then echoes
///   (after D seconds).
/// - `/status/N`, `/redirect/N`, `/relative-redirect/N`, `/absolute-redirect/N`, `/redirect-to?url=&status_code=`.
/// - `/delay/S`, `/drip?numbytes=&duration=&delay=&code=`, `/bytes/N?seed=`, `/stream-bytes/N?chunk_size=&seed=`,
///   `/stream/N`, `/range/N?seed=&etag=&last_modified=&chunk_delay=`.
/// - `/events?count=&retry=&drop-after=&interval=&type=&line-end=&bom=&chunk=`: Server-Sent Events
///   resumed after `Last-Event-ID`, dropped mid-event with `drop-after`, `204` once all were sent.
/// - `/trailers?coding=gzip&NAME=VALUE…`: a chunked JSON body (`length` and `trailers` of the
///   request's body, gzipped with `coding=gzip`), then every other query item as a trailer field.
/// - `/gzip`, `/deflate`, `/gzip-bomb?size=N`, `/bomb?coding=br|zstd&size=N`, `/encoded?coding=gzip,deflate,br,zstd&cut=N`, `/basic-auth/USER/PASS`, `/bearer?token=T`,
///   `/digest-auth/QOP/USER/PASS/ALGORITHM?stale_after=N&stale_times=M&offer=weaker`, `/response-headers?...`,
///   `/base64/VALUE?content_type=`, `/cache`, `/cache/N`, `/etag/ETAG`.
/// - `/cookies` (echo of the `Cookie` header), `/cookies/set?name=value`, `/cookies/delete?name`,
///   `/cookies/redirect?to=URL&set=FIELD&status=N` (a redirect that sets raw `Set-Cookie` fields).
/// - `/cacheable?cc=&etag=&last_modified=&expires=&date=&age=&vary=&status=&h=&fail_after=`: caching
///   fields set by the query, `304` to matching conditional requests, `hit N` as the body.
/// - `/gate/NAME?drop=1`: the `/get` echo (or, with `drop`, a connection closed mid-response), held until
///   ``openGate(_:)`` opens NAME.
/// - `/multipart`: the parts of a `multipart/form-data` body, names, file names (`filename*` decoded),
///   types and contents.
/// - `/idempotent[/...]?delay=S`: honours `Idempotency-Key` and counts each key in ``ledger``.
/// - `/polite?key=&delay=&status=&throttle_at=&retry_after=&spent_at=&reset=`: counts the requests
///   of each key answered at once in ``traffic``, and answers `429` or a spent `RateLimit` when
///   asked.
/// - `/content/NAME?gate=G`: the bytes published at NAME with ``publish(_:at:contentType:)``, held at
///   gate G when given; 404 when nothing is published there.
/// - `/duplex?speak=N`: answers while the request body arrives, echoing each piece, or speaking
///   first and waiting for each word to come back (see `DuplexScript`).
/// - `/sink`: takes a body of any size without keeping it; answers its length and CRC-32 (see ``CRC32``).
///
/// Call ``shutdown()`` when done; it closes the listener and every open connection.
public final class TestServer: Sendable {
    private let channel: any Channel
    private let registry: ConnectionRegistry
    private let log: RequestLog
    let gates: Gates
    let contents: PublishedContents

    /// The TCP port the server listens on.
    public let port: Int
    /// `https` when the server speaks TLS, else `http`.
    public let scheme: String
    /// The `Idempotency-Key`s the `/idempotent` route has seen.
    public let ledger: IdempotencyLedger
    /// What the `/polite` route saw.
    public let traffic: TrafficLedger

    private init(
        channel: any Channel, registry: ConnectionRegistry, log: RequestLog, gates: Gates, contents: PublishedContents,
        port: Int, scheme: String, ledger: IdempotencyLedger, traffic: TrafficLedger
    ) {
        self.traffic = traffic
        self.channel = channel
        self.registry = registry
        self.log = log
        self.gates = gates
        self.contents = contents
        self.port = port
        self.scheme = scheme
        self.ledger = ledger
    }

    /// Starts a server speaking plain HTTP on `127.0.0.1`: on `port`, or on an ephemeral port
    /// chosen by the system when it is 0 (the default). Pass the ``port`` of a server that was
    /// shut down, and its ``ledger``, to bring it back as if it had restarted.
    public static func start(port: Int = 0, ledger: IdempotencyLedger = IdempotencyLedger()) async throws -> TestServer {
        try await start(sslContext: nil, port: port, ledger: ledger)
    }

    /// Starts a server on `127.0.0.1` that speaks HTTPS with `sslContext` when it is given.
    package static func start(sslContext: NIOSSLContext?, port: Int, ledger: IdempotencyLedger) async throws -> TestServer {
        let registry = ConnectionRegistry()
        let log = RequestLog()
        let nonces = DigestNonces()
        let gates = Gates()
        let contents = PublishedContents()
        let traffic = TrafficLedger()
        let (channel, port) = try await LoopbackServerChannel.bind(port: port, registry: registry, sslContext: sslContext) { sync in
            try sync.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
            try sync.addHandler(TestServerHandler(log: log, nonces: nonces, gates: gates, contents: contents, ledger: ledger, traffic: traffic))
        }
        return TestServer(
            channel: channel, registry: registry, log: log, gates: gates, contents: contents, port: port,
            scheme: sslContext == nil ? "http" : "https", ledger: ledger, traffic: traffic
        )
    }

    /// The server's base URL, `http://127.0.0.1:PORT` (`https` with TLS).
    public var baseURL: URL {
        URL(string: "\(scheme)://127.0.0.1:\(self.port)")!
    }

    /// The URL of `pathAndQuery` on this server, e.g. `url("/get?x=1")` is `http://127.0.0.1:PORT/get?x=1`.
    ///
    /// A missing leading `/` is added. The text is used as-is, so it must already be percent-encoded.
    public func url(_ pathAndQuery: String) -> URL {
        let suffix = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        return URL(string: "\(scheme)://127.0.0.1:\(self.port)\(suffix)")!
    }

    /// Stops listening and closes every open connection; waits until they are closed.
    ///
    /// Idempotent: calling it again (or concurrently) waits for the same shutdown.
    public func shutdown() async throws {
        self.gates.openAll()
        try await self.registry.shutdown(serverChannel: self.channel)
    }

    /// Every request received so far, in arrival order.
    public var receivedRequests: [RecordedRequest] {
        self.log.requests
    }

    /// Forgets all requests recorded so far (``receivedRequests`` becomes empty).
    public func clearReceivedRequests() {
        self.log.clear()
    }

    /// The number of TCP connections currently open.
    public var openConnections: Int {
        self.registry.openConnections
    }

    /// The number of TCP connections accepted since the server started.
    public var acceptedConnections: Int {
        self.registry.acceptedConnections
    }
}

/// Thrown by ``TestServer/start()`` or ``FaultServer/start(_:)`` when the bound port cannot be determined.
package struct ServerStartError: Error {
    package init() {}
}

/// The thread-safe list of requests a ``TestServer`` received.
final class RequestLog: Sendable {
    private let storage = NIOLockedValueBox<(requests: [RecordedRequest], perURI: [String: Int])>(([], [:]))

    /// Appends `request` and returns the number of requests recorded so far, in all and for
    /// the same request target (this one included).
    func append(_ request: RecordedRequest) -> (total: Int, sameURI: Int) {
        self.storage.withLockedValue { storage in
            storage.requests.append(request)
            storage.perURI[request.uri, default: 0] += 1
            return (storage.requests.count, storage.perURI[request.uri]!)
        }
    }

    var requests: [RecordedRequest] {
        self.storage.withLockedValue { $0.requests }
    }

    func clear() {
        self.storage.withLockedValue { $0 = ([], [:]) }
    }
}
