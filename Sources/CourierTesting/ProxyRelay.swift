import CourierDemoServer
import Foundation
import NIOCore
import NIOPosix

/// The client side of a ``ForwardProxy`` connection: reads the request head, checks the
/// credentials, then connects to the origin and relays bytes in both directions.
///
/// Confined to its channel's event loop; the origin connection is opened on the same loop.
final class ProxyFrontHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case readingHead(ByteBuffer)
        /// The origin's side is the relay's.
        case relayed
        case closed
    }

    /// The largest request head read.
    private static let maximumHeadSize = 64 * 1024

    private let log: ProxyLog
    private let expectedAuthorization: String?
    private var state = State.readingHead(ByteBuffer())
    private let relay = OriginRelay()

    init(log: ProxyLog, expectedAuthorization: String?) {
        self.log = log
        self.expectedAuthorization = expectedAuthorization
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        switch state {
        case .readingHead(var head):
            head.writeImmutableBuffer(buffer)
            let bytes = head.readableBytesView
            guard let end = ProxyFrontHandler.endOfHead(bytes) else {
                state = .readingHead(head)
                if head.readableBytes > ProxyFrontHandler.maximumHeadSize { answer(context, "431 Request Header Fields Too Large") }
                return
            }
            let text = String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
            head.moveReaderIndex(to: head.readerIndex + (end - bytes.startIndex) + 4)
            handle(head: text, rest: head, context: context)
        case .relayed:
            relay.forward(buffer)
        case .closed:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        relay.close()
        state = .closed
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Handles a complete head: records it, checks credentials, then tunnels or forwards.
    private func handle(head: String, rest: ByteBuffer, context: ChannelHandlerContext) {
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines[0].split(separator: " ").map(String.init)
        let fields: [(name: String, value: String)] = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        guard requestLine.count == 3 else { return answer(context, "400 Bad Request") }
        let (method, target) = (requestLine[0], requestLine[1])
        let recorded = RecordedRequest(method: method, uri: target, headers: fields.map { RecordedHeader(name: $0.name, value: $0.value) }, body: [])
        log.update { $0.requests.append(recorded) }
        let authorization = fields.first { $0.name.lowercased() == "proxy-authorization" }?.value
        if let expectedAuthorization, authorization != expectedAuthorization {
            log.update { $0.refused += 1 }
            return answer(context, "407 Proxy Authentication Required", extra: "Proxy-Authenticate: Basic realm=\"courier-test-proxy\"\r\n")
        }
        if method == "CONNECT" {
            guard let (host, port) = ProxyFrontHandler.hostAndPort(target, defaultPort: 443) else { return answer(context, "400 Bad Request") }
            log.update { $0.tunnels += 1 }
            connect(context: context, host: host, port: port, first: nil, rest: rest, established: "HTTP/1.1 200 Connection Established\r\n\r\n")
            return
        }
        guard target.lowercased().hasPrefix("http://") else { return answer(context, "400 Bad Request") }
        let afterScheme = target.dropFirst("http://".count)
        let slash = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        guard let (host, port) = ProxyFrontHandler.hostAndPort(String(afterScheme[..<slash]), defaultPort: 80) else {
            return answer(context, "400 Bad Request")
        }
        let path = slash == afterScheme.endIndex ? "/" : String(afterScheme[slash...])
        var forwarded = "\(method) \(path) \(requestLine[2])\r\n"
        let dropped: Set<String> = ["proxy-authorization", "proxy-connection", "connection", "keep-alive"]
        for field in fields where !dropped.contains(field.name.lowercased()) { forwarded += "\(field.name): \(field.value)\r\n" }
        forwarded += "Connection: close\r\n\r\n"
        log.update { $0.forwarded += 1 }
        connect(context: context, host: host, port: port, first: ByteBuffer(string: forwarded), rest: rest, established: nil)
    }

    /// Opens the origin connection; then writes `established` back (for CONNECT), sends
    /// `first` and `rest` and everything read meanwhile to the origin, and starts relaying.
    private func connect(context: ChannelHandlerContext, host: String, port: Int, first: ByteBuffer?, rest: ByteBuffer, established: String?) {
        state = .relayed
        relay.open(host: host, port: port, from: context.channel, pending: rest.readableBytes > 0 ? [rest] : []) { result in
            switch result {
            case .failure:
                self.answer(context, "502 Bad Gateway")
            case .success(let origin):
                if let established { context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(string: established)), promise: nil) }
                if let first { origin.write(first, promise: nil) }
            }
        }
    }

    /// Writes a short response and closes the connection.
    private func answer(_ context: ChannelHandlerContext, _ status: String, extra: String = "") {
        state = .closed
        relay.close()
        let text = "HTTP/1.1 \(status)\r\n\(extra)Content-Length: 0\r\nConnection: close\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// The index of the `\r\n\r\n` that ends a head, if it arrived.
    private static func endOfHead(_ bytes: ByteBufferView) -> Int? {
        let end: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4 else { return nil }
        var index = bytes.startIndex
        while index + 4 <= bytes.endIndex {
            if bytes[index..<(index + 4)].elementsEqual(end) { return index }
            index += 1
        }
        return nil
    }

    /// `host:port` or `[v6]:port`; `defaultPort` when no port is given.
    private static func hostAndPort(_ authority: String, defaultPort: Int) -> (String, Int)? {
        var host = Substring(authority)
        var port = defaultPort
        let bracket = authority.lastIndex(of: "]") ?? authority.startIndex
        if let colon = authority[bracket...].lastIndex(of: ":") {
            guard let number = Int(authority[authority.index(after: colon)...]) else { return nil }
            host = authority[..<colon]
            port = number
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return host.isEmpty ? nil : (String(host), port)
    }
}

/// The origin's side of a test proxy's connection, once the proxy knows where to go: opens
/// the connection, holds what the client sends meanwhile, then relays both ways until either
/// side closes. ``ForwardProxy`` and ``SOCKSProxy`` use it; confined to the client
/// connection's event loop.
final class OriginRelay {
    private enum State {
        case idle
        case connecting(pending: [ByteBuffer])
        case relaying(any Channel)
        case closed
    }

    private var state = State.idle

    /// Connects to `host`:`port` on `front`'s loop, with `pending` to send first. `opened` is
    /// told the outcome before anything is relayed, so that it can answer the client and
    /// write ahead of `pending`; after a failure nothing is relayed.
    func open(
        host: String, port: Int, from front: any Channel, pending: [ByteBuffer],
        opened: @escaping (Result<any Channel, any Error>) -> Void
    ) {
        state = .connecting(pending: pending)
        let connection = ClientBootstrap(group: front.eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ProxyBackHandler(front: front))
                }
            }
            .connect(host: host, port: port)
        connection.assumeIsolated().whenComplete { result in
            guard case .connecting(let pending) = self.state else {
                if case .success(let origin) = result { origin.close(promise: nil) }
                return
            }
            opened(result)
            guard case .success(let origin) = result else {
                self.state = .closed
                return
            }
            for piece in pending { origin.write(piece, promise: nil) }
            origin.flush()
            self.state = .relaying(origin)
        }
    }

    /// Bytes from the client: held while connecting, relayed once connected.
    func forward(_ buffer: ByteBuffer) {
        switch state {
        case .connecting(var pending):
            pending.append(buffer)
            state = .connecting(pending: pending)
        case .relaying(let origin):
            origin.writeAndFlush(buffer, promise: nil)
        case .idle, .closed:
            break
        }
    }

    /// The client is gone: the origin's connection is closed.
    func close() {
        if case .relaying(let origin) = state { origin.close(promise: nil) }
        state = .closed
    }
}

/// The origin side of a ``ForwardProxy`` connection: relays what the origin sends to the
/// client, and closes the client connection when the origin closes.
final class ProxyBackHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let front: any Channel

    init(front: any Channel) {
        self.front = front
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        front.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        front.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
