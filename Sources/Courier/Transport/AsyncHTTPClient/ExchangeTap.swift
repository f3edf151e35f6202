import NIOCore
import NIOHTTP1
import NIOHTTP2

/// Sits between AsyncHTTPClient's request handler and the HTTP/1 codec (the connection's on
/// HTTP/1.1, the stream's translation on HTTP/2): takes the exchange number out of each
/// request head, ends the request with the trailers its body gave, and tells the
/// ``ExchangeRelay`` of the response's trailers and of its early end.
///
/// A response of status below 300 that ends before its request's end has been written is told
/// to the relay at once (a reader of a streamed body has all of it), and its end is held back
/// from AsyncHTTPClient until the request's end has gone out. That holds for every request with
/// a body, buffered ones too: a server may answer as soon as it has read the last byte, before
/// AsyncHTTPClient writes the request's end in a later turn. AsyncHTTPClient 1.37 would then
/// hand the connection back to its pool only once that write's promise has come back from the
/// request's loop; a connection that closed meanwhile has already left the pool, which stops
/// the process ("A connection that we don't know was released?"). Seeing the request end first,
/// AsyncHTTPClient hands the connection back as it reads the response's end instead. If the
/// connection goes away first, the held end is handed over before that is told, as it would
/// have come without the tap: a whole response is not lost.
///
/// On an HTTP/2 stream, a response of 300 or more that ends first is held back the same way:
/// AsyncHTTPClient 1.37 would drop the body's end that comes after it and never finish the
/// request. The body stops, its end is not written (the server must not take a cut body for
/// a whole one), the held response goes to AsyncHTTPClient, and the stream is reset.
///
/// Each body part of a streamed response is kept in the exchange's ``EarlyEnd`` until its
/// delegate has it, so that a connection that fails in the middle loses none of what came.
/// All state is confined to the channel's loop.
///
/// On an HTTP/1.1 connection the tap sits right after the response decoder and also refuses a
/// head whose status code is outside 100–999, as ``StatusCodeGuard`` does on Courier's own
/// connections (AsyncHTTPClient 1.37 stops the process on a code below 100): the error goes
/// down the pipeline, the connection closes, and nothing of that response reaches
/// AsyncHTTPClient. On an HTTP/2 stream ``HTTP2StatusCodeGuard`` has checked `:status` first.
final class ExchangeTap: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    /// The exchange whose request was written last.
    private struct Current {
        let number: UInt64
        let streamsBody: Bool
        let sendsTrailers: Bool
        /// Where the parts of a streamed response are kept until the delegate has them.
        var keeper: EarlyEnd?
        var bodyEnded = false
        var status: UInt = 0
        /// The response body's bytes so far, as received.
        var responseBytes = 0
        /// Whether a response of 300 or more ended on a stream while the body was being sent.
        var isRefused = false
    }

    private let relay: ExchangeRelay
    /// Whether this tap sits on an HTTP/2 stream.
    private let isStream: Bool
    private var current: Current?
    /// The end of a response that came before its request's end, with its trailers.
    private var heldEnd: HTTPHeaders??
    /// Whether a head with a status code outside 100–999 was refused: nothing more is read.
    private var refused = false

    init(relay: ExchangeRelay, isStream: Bool) {
        self.relay = relay
        self.isStream = isStream
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            current = nil
            heldEnd = nil
            if let value = head.headers.first(name: ExchangeRelay.fieldName) {
                head.headers.remove(name: ExchangeRelay.fieldName)
                current = ExchangeRelay.Marker(value).map { marker in
                    Current(
                        number: marker.number, streamsBody: marker.streamsBody, sendsTrailers: marker.sendsTrailers,
                        keeper: marker.streamsResponse ? relay.earlyEnd(of: marker.number) : nil
                    )
                }
            }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end(let trailers):
            current?.bodyEnded = true
            if current?.isRefused == true {
                promise?.succeed()
                releaseHeldEnd(context: context)
                return
            }
            if trailers == nil, let current, current.sendsTrailers, let given = relay.trailersToSend(for: current.number) {
                context.write(wrapOutboundOut(.end(given)), promise: promise)
            } else {
                context.write(data, promise: promise)
            }
            releaseHeldEnd(context: context)
        case .body:
            context.write(data, promise: promise)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if !isStream, let refusal = StatusCodeGuard.refusal(of: head) {
                refused = true
                context.fireErrorCaught(refusal)
                context.close(promise: nil)
                return
            }
            if head.status.code >= 200 { current?.status = head.status.code }
        case .body(let piece):
            current?.responseBytes += piece.readableBytes
            current?.keeper?.received(piece)
        case .end(let trailers):
            guard let current else { break }
            // The whole body went to AsyncHTTPClient, which hands all of it to the delegate.
            self.current?.keeper = nil
            if let trailers, !trailers.isEmpty { relay.receive(trailers, for: current.number) }
            guard !current.bodyEnded else { break }
            if current.status >= 300 {
                // AsyncHTTPClient closes the connection then, and waits for a body that
                // nothing will take any more.
                relay.responseEnded(current.number)
                guard isStream else { break }
                self.current?.isRefused = true
                heldEnd = .some(trailers)
                return
            } else {
                relay.responseCompleted(current.number, .init(bodyBytes: current.responseBytes, trailers: trailers))
                heldEnd = .some(trailers)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The response ended before the connection did: AsyncHTTPClient gets its end first, as
        // it would have without the tap, then fails what still uploads.
        if let trailers = heldEnd {
            heldEnd = nil
            context.fireChannelRead(wrapInboundOut(.end(trailers)))
            context.fireChannelReadComplete()
        }
        context.fireChannelInactive()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // AsyncHTTPClient closes the connection (a cancelled task, a timeout): a response end
        // held back would reach it after it gave the connection up, and it would hand the
        // connection back to a pool that has already let it go.
        heldEnd = nil
        context.close(mode: mode, promise: promise)
    }

    /// Hands AsyncHTTPClient the response end held back, in a turn of the loop of its own,
    /// once AsyncHTTPClient has finished writing the request's end.
    private func releaseHeldEnd(context: ChannelHandlerContext) {
        guard heldEnd != nil else { return }
        context.eventLoop.assumeIsolated().execute {
            guard let trailers = self.heldEnd else { return }
            self.heldEnd = nil
            context.fireChannelRead(self.wrapInboundOut(.end(trailers)))
            context.fireChannelReadComplete()
            // A body cut short never ends on the wire: its stream is reset.
            if self.current?.isRefused == true { context.close(promise: nil) }
        }
    }

    /// Adds a tap right after the response decoder of an HTTP/1.1 connection's pipeline. Call
    /// on its loop.
    static func install(on channel: any Channel, relay: ExchangeRelay) throws {
        let sync = channel.pipeline.syncOperations
        let decoder = try sync.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self)
        try sync.addHandler(ExchangeTap(relay: relay, isStream: false), position: .after(decoder))
    }

    /// Adds a tap after the HTTP/2-to-HTTP/1 translation of `stream`. Call on its loop.
    static func install(onStream stream: any Channel, relay: ExchangeRelay) throws {
        let sync = stream.pipeline.syncOperations
        let translation = try sync.handler(type: HTTP2FramePayloadToHTTP1ClientCodec.self)
        try sync.addHandler(ExchangeTap(relay: relay, isStream: true), position: .after(translation))
    }
}
