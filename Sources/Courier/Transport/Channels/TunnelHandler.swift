import NIOCore

/// What one kind of proxy's handshake says and reads: `CONNECT` to an HTTP proxy
/// (``HTTPConnectNegotiation``), or SOCKS5's (``SOCKS5Handshake``). A pure state machine that
/// ``TunnelHandler`` runs on a connection.
protocol TunnelNegotiation: SendableMetatype {
    /// The error of a proxy that closed the connection, or did not finish in time.
    static var noAnswer: any Error { get }
    /// The error of a proxy that sent bytes after its last answer.
    static var unreadable: any Error { get }
    /// The first bytes sent to the proxy.
    var opening: [UInt8] { get }
    /// Reads what it can of `received` (the proxy's bytes not read yet), removing what it
    /// read, and says what to do next; throws the proxy's refusal.
    mutating func advance(_ received: inout [UInt8]) throws -> TunnelStep
}

/// What ``TunnelHandler`` does next.
enum TunnelStep: Equatable {
    /// Sends these bytes, then reads on.
    case send([UInt8])
    /// Waits for more of the proxy's answer.
    case read
    /// The tunnel is open: what follows is the origin's.
    case established
}

/// Opens a tunnel through a proxy, on a connection of ``ChannelTransport`` made to the proxy,
/// then hands the connection over to what speaks to the origin.
///
/// It sends the negotiation's opening once the connection is active and feeds it the proxy's
/// bytes; once the tunnel is open, this handler leaves the pipeline and `next` installs TLS
/// (or HTTP/1.1 for a plain http origin) in the same turn of the loop. A refusal, a close, the
/// connect limit passing first, or bytes after the proxy's last answer (neither a TLS server
/// nor an HTTP server speaks first) fail the connection with `failure`, told once.
final class TunnelHandler<Negotiation: TunnelNegotiation>: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var negotiation: Negotiation
    private let deadline: NIODeadline
    private let next: (any Channel) throws -> Void
    private var failure: ((any Error) -> Void)?
    private var timer: Scheduled<Void>?
    private var started = false
    private var received: [UInt8] = []

    init(
        _ negotiation: Negotiation, deadline: NIODeadline, next: @escaping (any Channel) throws -> Void,
        failure: @escaping (any Error) -> Void
    ) {
        self.negotiation = negotiation
        self.deadline = deadline
        self.next = next
        self.failure = failure
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let noAnswer = Negotiation.noAnswer
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = bound.value
            handler.refuse(noAnswer, context: context)
        }
        if context.channel.isActive { open(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        open(context: context)
        context.fireChannelActive()
    }

    private func open(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: negotiation.opening)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard failure != nil else { return }
        received += unwrapInboundIn(data).readableBytesView
        do {
            while true {
                switch try negotiation.advance(&received) {
                case .read:
                    return
                case .send(let bytes):
                    context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
                case .established:
                    return handOver(context: context)
                }
            }
        } catch {
            refuse(error, context: context)
        }
    }

    /// The tunnel is open: the handler makes way for what speaks to the origin.
    private func handOver(context: ChannelHandlerContext) {
        guard received.isEmpty, let fail = failure else { return refuse(Negotiation.unreadable, context: context) }
        timer?.cancel()
        timer = nil
        failure = nil
        do {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            try next(context.channel)
        } catch {
            fail(error)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        refuse(Negotiation.noAnswer, context: context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard failure != nil else { return context.fireErrorCaught(error) }
        refuse(error, context: context)
    }

    private func refuse(_ error: any Error, context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        guard let failure else { return }
        self.failure = nil
        failure(error)
        context.close(promise: nil)
    }
}
