import CourierDemoServer
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// A WebSocket server on `127.0.0.1` (ephemeral port), built on SwiftNIO's WebSocket upgrader
/// and frame codec, for testing clients: it echoes every data frame as it came (a fragmented
/// message comes back in the same fragments), answers pings, and answers a close with the same
/// code, then closes the connection.
///
/// The path chooses what else it does:
/// - `/send?count=N&size=S&fragments=F`: on opening, sends N binary messages of S bytes (the
///   byte `i % 256` at offset `i`), each cut into F frames; then echoes.
/// - `/close?code=C&reason=R`: after the first message, sends a close frame with C and R
///   (1000 and no reason by default) and waits for the client's.
/// - `/drop`: after the first message, closes the connection without a close frame.
/// - `/silent`: answers no pings.
/// - `/cookie`: the 101 sets the cookie `ws=1`.
/// - `/deflate`: an echo run by swift-websocket's server handler instead, which accepts
///   permessage-deflate (RFC 7692) when the client offers it.
/// - a path starting `/refuse`: answers `403 Forbidden` with the body `no` instead of switching.
///
/// The first subprotocol a client offers is chosen. Call ``shutdown()`` when done.
public final class WebSocketEchoServer: Sendable {
    private let channel: any Channel
    private let registry: ConnectionRegistry
    private let log: NIOLockedValueBox<[RecordedRequest]>
    private let closes: NIOLockedValueBox<[UInt16]>
    private let scheme: String

    /// The TCP port the server listens on.
    public let port: Int

    private init(
        channel: any Channel, registry: ConnectionRegistry, port: Int, scheme: String, log: NIOLockedValueBox<[RecordedRequest]>,
        closes: NIOLockedValueBox<[UInt16]>
    ) {
        self.closes = closes
        self.channel = channel
        self.registry = registry
        self.port = port
        self.scheme = scheme
        self.log = log
    }

    /// Starts a server; with `tls`, after a TLS handshake (`wss`).
    public static func start(tls: TestServerTLS? = nil) async throws -> WebSocketEchoServer {
        let registry = ConnectionRegistry()
        let log = NIOLockedValueBox<[RecordedRequest]>([])
        let closes = NIOLockedValueBox<[UInt16]>([])
        let (channel, port) = try await LoopbackServerChannel.bind(port: 0, registry: registry, sslContext: try tls?.makeContext()) { sync in
            let upgrader = NIOWebSocketServerUpgrader(
                maxFrameSize: 1 << 24, automaticErrorHandling: true,
                shouldUpgrade: { channel, head in
                    log.withLockedValue {
                        $0.append(RecordedRequest(method: head.method.rawValue, uri: head.uri, headers: head.headers.map { RecordedHeader(name: $0.name, value: $0.value) }, body: []))
                    }
                    guard !head.uri.hasPrefix("/refuse") else { return channel.eventLoop.makeSucceededFuture(nil) }
                    var headers = HTTPHeaders()
                    if let offered = head.headers.first(name: "Sec-WebSocket-Protocol") {
                        let first = offered.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                        headers.add(name: "Sec-WebSocket-Protocol", value: first)
                    }
                    if head.uri.hasPrefix("/cookie") { headers.add(name: "Set-Cookie", value: "ws=1; Path=/") }
                    if head.uri.hasPrefix("/deflate") {
                        for (name, value) in DeflateEcho.acceptance(of: head) { headers.add(name: name, value: value) }
                    }
                    return channel.eventLoop.makeSucceededFuture(headers)
                },
                upgradePipelineHandler: { channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        if head.uri.hasPrefix("/deflate") {
                            try DeflateEcho.run(on: channel, head: head)
                        } else {
                            try channel.pipeline.syncOperations.addHandler(EchoHandler(uri: head.uri, closes: closes))
                        }
                    }
                }
            )
            try sync.configureHTTPServerPipeline(
                withServerUpgrade: (
                    upgraders: [upgrader],
                    completionHandler: { context in
                        if let refusal = try? context.pipeline.syncOperations.handler(type: RefusalHandler.self) {
                            _ = context.pipeline.syncOperations.removeHandler(refusal)
                        }
                    }
                )
            )
            try sync.addHandler(RefusalHandler())
        }
        return WebSocketEchoServer(channel: channel, registry: registry, port: port, scheme: tls == nil ? "ws" : "wss", log: log, closes: closes)
    }

    /// The server's URL, `ws://127.0.0.1:PORT/` (or `wss://…` with TLS).
    public var url: URL { URL(string: "\(scheme)://127.0.0.1:\(port)/")! }

    /// `path` on this server, as a `ws` (or `wss`) URL.
    public func url(_ path: String) -> URL { URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")! }

    /// The upgrade requests received so far, in order.
    public var upgradeRequests: [RecordedRequest] { log.withLockedValue { $0 } }

    /// The codes of the close frames clients sent, in order (1005 for a frame without one).
    public var receivedCloseCodes: [UInt16] { closes.withLockedValue { $0 } }

    /// The number of connections open now.
    public var openConnections: Int { registry.openConnections }

    /// Stops listening and closes every connection.
    public func shutdown() async throws {
        try await registry.shutdown(serverChannel: channel)
    }
}
