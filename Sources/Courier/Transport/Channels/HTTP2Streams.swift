import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2

/// The streams of an HTTP/2 connection of ``ChannelTransport``: each exchange gets one, set
/// up to look like a connection of its own to ``Exchange`` and ``ExchangeHandler``.
///
/// A stream's pipeline is the status guard (on HTTP/2 frames, before NIOHTTP2 reads the
/// `:status`), NIOHTTP2's translation to HTTP/1 messages, and an ``ExchangeHandler``; the
/// read timeout is the exchange's (see ``ReadWatchdog``). Closing the stream's channel resets the stream and leaves the
/// connection to the others.
struct HTTP2Streams: Sendable {
    let multiplexer: NIOHTTP2Handler.StreamMultiplexer

    /// Sets `channel`, which has just finished its TLS handshake with ALPN choosing `h2`, up
    /// for HTTP/2. Call on its loop.
    static func configure(_ channel: any Channel) throws -> HTTP2Streams {
        let multiplexer = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .client, connectionConfiguration: .init(), streamConfiguration: .init()
        ) { pushed in
            // The client takes no pushed streams.
            pushed.close()
        }
        return HTTP2Streams(multiplexer: multiplexer)
    }

    /// A new stream, as a connection for one exchange.
    func open() async throws -> Connection {
        let fault = Connection.Fault(nil)
        let stream = try await multiplexer.createStreamChannel { stream in
            stream.eventLoop.makeCompletedFuture {
                let sync = stream.pipeline.syncOperations
                try sync.addHandler(HTTP2StatusCodeGuard())
                try sync.addHandler(HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: .https))
                try sync.addHandler(ExchangeHandler(fault: fault))
            }
        }.get()
        return Connection(channel: stream, fault: fault, streams: nil)
    }
}
