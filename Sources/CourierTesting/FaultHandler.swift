import CourierDemoServer
import NIOCore

/// The per-connection handler of ``FaultServer``: waits for the end of the request head, then injects the fault.
///
/// Runs entirely on the connection's event loop.
final class FaultHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A request head longer than this is treated as complete.
    private static let maximumHeadSize = 1024 * 1024
    /// The total size of the header block written by ``FaultServer/Fault/endlessHeaders``.
    private static let endlessHeadersLimit = 4 * 1024 * 1024
    /// How long a half-closed connection waits for the client to close before it is closed fully.
    private static let lingerTime = TimeAmount.seconds(2)

    private let fault: FaultServer.Fault
    private var received: [UInt8] = []
    private var triggered = false
    private var isActive = true
    private var headerBytesWritten = 0
    private var headerIndex = 0
    private var writingHeaders = false
    private var lingerTask: Scheduled<Void>?
    private var requestsOnConnection = 0
    private var trickle: Scheduled<Void>?
    /// The pause between two pieces of a trickling fault, and how many pieces it writes at most.
    private static let tricklePause = TimeAmount.milliseconds(50)
    private static let trickleLimit = 12_000

    init(fault: FaultServer.Fault) {
        self.fault = fault
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.triggered else { return }
        let buffer = self.unwrapInboundIn(data)
        let searchStart = max(0, self.received.count - 3)
        self.received.append(contentsOf: buffer.readableBytesView)
        let headComplete = Multipart.find([13, 10, 13, 10], in: self.received, from: searchStart) != nil
        if headComplete || self.received.count > Self.maximumHeadSize {
            self.triggered = true
            self.received = []
            self.injectFault(context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.isActive = false
        self.writingHeaders = false
        self.lingerTask?.cancel()
        self.lingerTask = nil
        self.trickle?.cancel()
        self.trickle = nil
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable && self.writingHeaders {
            self.writeHeaders(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func injectFault(context: ChannelHandlerContext) {
        switch self.fault {
        case .closeBeforeResponse:
            context.close(promise: nil)
        case .stall:
            break
        case .closeReusedConnection:
            self.requestsOnConnection += 1
            guard self.requestsOnConnection == 1 else {
                context.close(promise: nil)
                return
            }
            context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")), promise: nil)
            // Read the next request head on the same connection.
            self.triggered = false
        case .endlessHeaders:
            context.write(self.wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 OK\r\n")), promise: nil)
            self.writingHeaders = true
            self.writeHeaders(context: context)
        case .trickleHead:
            self.startTrickle(context: context, head: "HTTP/1.1 200 OK\r\n") { "X-Slow-\($0): a\r\n" }
        case .trickleBody:
            self.startTrickle(context: context, head: "HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n") { _ in "x" }
        case .closeMidBody, .malformedStatusLine, .brokenChunkedFraming, .conflictingContentLength, .raw:
            let bytes = self.fault.fixedResponse ?? []
            context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(bytes: bytes))).assumeIsolated().whenComplete { _ in
                self.closeGracefully(context: context)
            }
        }
    }

    /// Writes `head`, then `piece(n)` every ``tricklePause``, until the connection closes or
    /// ``trickleLimit`` pieces were written.
    private func startTrickle(context: ChannelHandlerContext, head: String, piece: @escaping (Int) -> String) {
        context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(string: head)), promise: nil)
        self.trickleNext(context: context, written: 0, piece: piece)
    }

    private func trickleNext(context: ChannelHandlerContext, written: Int, piece: @escaping (Int) -> String) {
        guard self.isActive, written < Self.trickleLimit else { return }
        self.trickle = context.eventLoop.assumeIsolated().scheduleTask(in: Self.tricklePause) {
            context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(string: piece(written + 1))), promise: nil)
            self.trickleNext(context: context, written: written + 1, piece: piece)
        }
    }

    /// Writes filler header lines while the channel is writable, up to ``endlessHeadersLimit`` bytes in total.
    private func writeHeaders(context: ChannelHandlerContext) {
        let value = String(repeating: "a", count: 1024)
        while self.isActive && self.writingHeaders && context.channel.isWritable {
            guard self.headerBytesWritten < Self.endlessHeadersLimit else {
                self.writingHeaders = false
                context.writeAndFlush(self.wrapOutboundOut(ByteBuffer())).assumeIsolated().whenComplete { _ in
                    self.closeGracefully(context: context)
                }
                return
            }
            let line = "X-Filler-\(self.headerIndex): \(value)\r\n"
            self.headerIndex += 1
            self.headerBytesWritten += line.utf8.count
            context.write(self.wrapOutboundOut(ByteBuffer(string: line)), promise: nil)
        }
        context.flush()
    }

    /// Half-closes the connection (so the client reads everything written, then end-of-stream), and closes it
    /// fully once the client closes or after a short linger time.
    private func closeGracefully(context: ChannelHandlerContext) {
        guard self.isActive else { return }
        context.close(mode: .output).assumeIsolated().whenFailure { _ in
            context.close(promise: nil)
        }
        self.lingerTask = context.eventLoop.assumeIsolated().scheduleTask(in: Self.lingerTime) {
            context.close(promise: nil)
        }
    }
}
