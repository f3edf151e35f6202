import Foundation
import NIOCore

/// Opens a tunnel through an HTTP proxy with `CONNECT`, on a connection of
/// ``ChannelTransport`` made to the proxy, then hands the connection over to TLS.
///
/// The `CONNECT` names the origin as `host:port`, in its target and in its `Host` field, and
/// carries the proxy's credentials (Basic) and nothing else: no header of the request, no
/// origin credential. The proxy's answer is read as bytes up to the end of its head (at most
/// 16 KiB); once it is 2xx, this handler leaves the pipeline and `next` installs what speaks to
/// the origin (TLS, then the handshake), in the same turn of the loop. Any other answer, a
/// close, or the connect limit passing first fails the connection with `failure`.
final class ProxyTunnelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Why a tunnel was not opened.
    enum Refusal: Error {
        /// The proxy wants (other) credentials: 407.
        case credentials
        /// The proxy answered this status.
        case status(Int)
        /// The proxy's answer was not an HTTP response head.
        case unreadable
        /// The proxy closed the connection, or its answer did not come in time.
        case noAnswer
    }

    /// The longest answer head read from a proxy.
    static let maximumHeadSize = 16 * 1024

    private let request: String
    private let deadline: NIODeadline
    private let next: (any Channel) throws -> Void
    private var failure: ((any Error) -> Void)?
    private var timer: Scheduled<Void>?
    private var sent = false
    private var received = ByteBuffer()

    /// - Parameters:
    ///   - failure: told once, when the tunnel cannot be opened.
    init(
        host: String, port: Int, proxy: Proxy, deadline: NIODeadline, next: @escaping (any Channel) throws -> Void,
        failure: @escaping (any Error) -> Void
    ) {
        let target = "\(Exchange.authorityHost(host)):\(port)"
        var request = "CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n"
        if let credentials = proxy.credentials {
            request += "Proxy-Authorization: \(Authenticator.basic(user: credentials.user, password: credentials.password))\r\n"
        }
        self.request = request + "\r\n"
        self.deadline = deadline
        self.next = next
        self.failure = failure
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = bound.value
            handler.refuse(Refusal.noAnswer, context: context)
        }
        if context.channel.isActive { sendConnect(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendConnect(context: context)
        context.fireChannelActive()
    }

    private func sendConnect(context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: request)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard failure != nil else { return }
        var piece = unwrapInboundIn(data)
        received.writeBuffer(&piece)
        guard let end = ProxyTunnelHandler.endOfHead(received.readableBytesView) else {
            if received.readableBytes > ProxyTunnelHandler.maximumHeadSize { refuse(Refusal.unreadable, context: context) }
            return
        }
        let head = String(decoding: received.readableBytesView.prefix(end), as: UTF8.self)
        received.moveReaderIndex(forwardBy: end)
        guard let status = ProxyTunnelHandler.status(of: head) else { return refuse(Refusal.unreadable, context: context) }
        guard (200..<300).contains(status) else {
            return refuse(status == 407 ? Refusal.credentials : Refusal.status(status), context: context)
        }
        // A TLS server says nothing before the client's hello: a proxy that sent more after
        // its answer is not a tunnel to one.
        guard received.readableBytes == 0, let fail = failure else { return refuse(Refusal.unreadable, context: context) }
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
        refuse(Refusal.noAnswer, context: context)
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

    /// Where the head in `bytes` ends, just past its blank line, if it has ended.
    static func endOfHead(_ bytes: ByteBufferView) -> Int? {
        let crlfcrlf: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4 else { return nil }
        var index = bytes.startIndex
        while index <= bytes.endIndex - 4 {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                return index - bytes.startIndex + crlfcrlf.count
            }
            index += 1
        }
        return nil
    }

    /// The status code of the head's status line (`HTTP/1.x NNN …`), if it is one.
    static func status(of head: String) -> Int? {
        // Bytes, not characters: "\r\n" is one Character, which a character test would miss.
        let line = head.utf8.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let parts = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].starts(with: "HTTP/1.".utf8), parts[1].count == 3,
            parts[1].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return parts[1].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}

extension ProxyTunnelHandler.Refusal {
    /// The error of a tunnel to `host`:`port` that `proxy` did not open; nothing was sent to
    /// the origin.
    func error(host: String, port: Int, proxy: Proxy?) -> CourierError {
        let named = proxy.map { "The proxy \($0.host):\($0.port)" } ?? "The proxy"
        var error: CourierError
        switch self {
        case .credentials:
            error = CourierError(
                .proxy,
                "\(named) refused its credentials (407 Proxy Authentication Required); check the user name and password of ClientConfiguration.proxy (or of the proxy the environment names)."
            )
        case .status(let status):
            error = CourierError(.proxy, "\(named) refused to open a tunnel to \(host):\(port) (status \(status)); check that it allows CONNECT to that port.")
        case .unreadable:
            error = CourierError(.proxy, "\(named) did not answer the tunnel request with an HTTP response; check that it is an HTTP proxy.")
        case .noAnswer:
            error = CourierError(.proxy, "\(named) did not answer the tunnel request in time, or closed the connection; check that it is a running HTTP proxy.")
        }
        error.requestMayHaveBeenSent = false
        error.proxy = proxy
        return error
    }
}
