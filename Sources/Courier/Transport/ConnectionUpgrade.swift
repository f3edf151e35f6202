import NIOConcurrencyHelpers
import NIOCore

/// An HTTP/1.1 upgrade a request asks for (`Connection: Upgrade`): when the server answers
/// `101 Switching Protocols`, its connection leaves HTTP and is handed over.
///
/// The request goes the whole request path (credentials, cookies, redirects, proxy, TLS
/// settings and pins) on a connection of the client's own that speaks HTTP/1.1 only and is
/// used for nothing else. On a `101`, before any byte after the response head is read,
/// ``install`` adds the new protocol's handlers at the end of the connection's pipeline; then
/// the HTTP handlers are removed, the bytes that came after the head go on to the new
/// handlers, and ``channel`` holds the connection. On any other response the connection is
/// closed once the response is read.
package final class ConnectionUpgrade: Sendable {
    /// Adds the new protocol's handlers to a connection that switched; called on its loop.
    let install: @Sendable (any Channel) throws -> Void
    private let taken = NIOLockedValueBox<(any Channel)?>(nil)

    /// An upgrade whose protocol `install` sets up on the connection.
    package init(install: @escaping @Sendable (any Channel) throws -> Void) {
        self.install = install
    }

    /// The connection, once the server switched protocols; its owner closes it.
    package var channel: (any Channel)? { taken.withLockedValue { $0 } }

    /// The connection switched; ``install`` has run on it.
    func hand(_ channel: any Channel) {
        taken.withLockedValue { $0 = channel }
    }
}

/// Keeps the bytes that arrive while a connection switches protocols, and hands them, in
/// order, to the handlers behind it when it is removed. Confined to the channel's loop.
final class SwitchHold: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var held: [NIOAny] = []
    private var inactive = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        held.append(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {}

    func channelInactive(context: ChannelHandlerContext) {
        inactive = true
    }

    func removeHandler(context: ChannelHandlerContext, removalToken: ChannelHandlerContext.RemovalToken) {
        let held = self.held
        self.held = []
        for data in held { context.fireChannelRead(data) }
        if !held.isEmpty { context.fireChannelReadComplete() }
        if inactive { context.fireChannelInactive() }
        context.leavePipeline(removalToken: removalToken)
    }
}
