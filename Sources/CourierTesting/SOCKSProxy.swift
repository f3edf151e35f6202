import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A small in-process SOCKS5 proxy (RFC 1928, with RFC 1929's user name and password), for
/// tests.
///
/// It listens on `127.0.0.1`, port 0, and serves `CONNECT` only: it connects to the target,
/// by name or by address, and relays bytes both ways until either side closes. With
/// ``ForwardProxy/Credentials`` it accepts only the user name and password method and those
/// credentials; without, only "no authentication". A target it cannot reach is answered with
/// reply 5 (connection refused).
///
/// Every tunnel it opens is recorded in ``tunnels``: how the target was named, and the
/// credentials that came with it, so tests can check what reached the proxy.
public final class SOCKSProxy: Sendable {
    /// A tunnel the proxy opened.
    public struct Tunnel: Sendable, Hashable {
        /// The target as the client named it: a host name, or an address in its usual form.
        public var host: String
        /// The target's port.
        public var port: Int
        /// Whether the client sent a name (`socks5h`) rather than an address.
        public var byName: Bool
        /// The user name the client signed in with, if it did.
        public var user: String?
        /// The password the client signed in with, if it did.
        public var password: String?
    }

    struct Log {
        var tunnels: [Tunnel] = []
        var refused = 0
    }

    private let listener: LoopbackListener
    private let log: NIOLockedValueBox<Log>

    /// The TCP port the proxy listens on.
    public var port: Int { listener.port }

    /// The tunnels opened so far, in order.
    public var tunnels: [Tunnel] { log.withLockedValue { $0.tunnels } }

    /// How many handshakes the proxy refused (a method or credentials it does not accept).
    public var refusals: Int { log.withLockedValue { $0.refused } }

    private init(listener: LoopbackListener, log: NIOLockedValueBox<Log>) {
        self.listener = listener
        self.log = log
    }

    /// Starts a proxy on `127.0.0.1`, port 0; with `credentials`, it requires them.
    public static func start(credentials: ForwardProxy.Credentials? = nil) async throws -> SOCKSProxy {
        let log = NIOLockedValueBox(Log())
        let listener = try await LoopbackListener.bind { pipeline in
            try pipeline.addHandler(SOCKSFrontHandler(log: log, credentials: credentials))
        }
        return SOCKSProxy(listener: listener, log: log)
    }

    /// Starts a proxy, runs `body` with it, and shuts the proxy down afterwards, whether
    /// `body` returns or throws.
    public static func withProxy<Result>(
        credentials: ForwardProxy.Credentials? = nil, _ body: (SOCKSProxy) async throws -> Result
    ) async throws -> Result {
        let proxy = try await start(credentials: credentials)
        do {
            let result = try await body(proxy)
            try await proxy.shutdown()
            return result
        } catch {
            try? await proxy.shutdown()
            throw error
        }
    }

    /// Stops listening and closes the connections.
    public func shutdown() async throws {
        try await listener.shutdown()
    }
}

/// The client side of a ``SOCKSProxy`` connection: the handshake, then the relay.
final class SOCKSFrontHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case greeting, authentication, request
        /// The origin's side is the relay's.
        case relayed
        case closed
    }

    private let log: NIOLockedValueBox<SOCKSProxy.Log>
    private let credentials: ForwardProxy.Credentials?
    private var state = State.greeting
    private let relay = OriginRelay()
    private var received: [UInt8] = []
    private var user: String?
    private var password: String?

    init(log: NIOLockedValueBox<SOCKSProxy.Log>, credentials: ForwardProxy.Credentials?) {
        self.log = log
        self.credentials = credentials
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        switch state {
        case .relayed:
            relay.forward(buffer)
            return
        case .closed:
            return
        case .greeting, .authentication, .request:
            received += buffer.readableBytesView
        }
        while step(context: context) {}
    }

    /// Handles one whole message of the handshake, if it arrived; whether to look again.
    private func step(context: ChannelHandlerContext) -> Bool {
        switch state {
        case .greeting:
            guard received.count >= 2, received.count >= 2 + Int(received[1]) else { return false }
            guard received[0] == 5 else { return refuse(context, []) }
            let methods = received[2..<(2 + Int(received[1]))]
            received.removeFirst(2 + Int(received[1]))
            let wanted: UInt8 = credentials == nil ? 0 : 2
            guard methods.contains(wanted) else { return refuse(context, [5, 0xFF]) }
            send(context, [5, wanted])
            state = credentials == nil ? .request : .authentication
            return true
        case .authentication:
            guard received.count >= 2 else { return false }
            let userLength = Int(received[1])
            guard received.count >= 3 + userLength else { return false }
            let passwordLength = Int(received[2 + userLength])
            guard received.count >= 3 + userLength + passwordLength else { return false }
            let user = String(decoding: received[2..<(2 + userLength)], as: UTF8.self)
            let password = String(decoding: received[(3 + userLength)..<(3 + userLength + passwordLength)], as: UTF8.self)
            received.removeFirst(3 + userLength + passwordLength)
            guard user == credentials?.user, password == credentials?.password else { return refuse(context, [1, 1]) }
            (self.user, self.password) = (user, password)
            send(context, [1, 0])
            state = .request
            return true
        case .request:
            guard received.count >= 5 else { return false }
            guard received[0] == 5, received[1] == 1 else { return refuse(context, [5, 7, 0, 1, 0, 0, 0, 0, 0, 0]) }
            let host: String
            let length: Int
            switch received[3] {
            case 1:
                length = 4 + 4 + 2
                guard received.count >= length else { return false }
                host = received[4..<8].map(String.init).joined(separator: ".")
            case 4:
                length = 4 + 16 + 2
                guard received.count >= length else { return false }
                var address = in6_addr()
                withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: received[4..<20]) }
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            case 3:
                length = 4 + 1 + Int(received[4]) + 2
                guard received.count >= length else { return false }
                host = String(decoding: received[5..<(5 + Int(received[4]))], as: UTF8.self)
            default:
                return refuse(context, [5, 8, 0, 1, 0, 0, 0, 0, 0, 0])
            }
            let port = Int(received[length - 2]) << 8 | Int(received[length - 1])
            let tunnel = SOCKSProxy.Tunnel(host: host, port: port, byName: received[3] == 3, user: user, password: password)
            received.removeFirst(length)
            let rest = received
            received = []
            connect(context: context, tunnel: tunnel, rest: rest)
            return false
        case .relayed, .closed:
            return false
        }
    }

    /// Connects to the target, answers the client, and starts relaying.
    private func connect(context: ChannelHandlerContext, tunnel: SOCKSProxy.Tunnel, rest: [UInt8]) {
        state = .relayed
        relay.open(host: tunnel.host, port: tunnel.port, from: context.channel, pending: rest.isEmpty ? [] : [ByteBuffer(bytes: rest)]) { result in
            switch result {
            case .failure:
                _ = self.refuse(context, [5, 5, 0, 1, 0, 0, 0, 0, 0, 0], counted: false)
            case .success:
                self.log.withLockedValue { $0.tunnels.append(tunnel) }
                self.send(context, [5, 0, 0, 1, 127, 0, 0, 1, 0, 0])
            }
        }
    }

    private func send(_ context: ChannelHandlerContext, _ bytes: [UInt8]) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
    }

    /// Answers `bytes` (if any), closes the connection; `false`, to stop reading.
    private func refuse(_ context: ChannelHandlerContext, _ bytes: [UInt8], counted: Bool = true) -> Bool {
        state = .closed
        relay.close()
        if counted { log.withLockedValue { $0.refused += 1 } }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
        return false
    }

    func channelInactive(context: ChannelHandlerContext) {
        relay.close()
        state = .closed
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
