import Courier
import Foundation
import Logging
import NIOCore
import NIOWebSocket
@_spi(WSInternal) import WSCore

extension CourierClient {
    /// Opens a WebSocket connection with `request` and runs `body` with it; the connection is
    /// closed (close handshake, code 1000) when `body` returns, or with code 1011 when it
    /// throws.
    ///
    /// ```swift
    /// let reply = try await client.webSocket(CourierRequest<Void>(path: "wss://echo.example/socket")) { socket -> CourierWebSocket.Message? in
    ///     try await socket.send("hello")
    ///     for try await message in socket.messages {
    ///         return message
    ///     }
    ///     return nil
    /// }
    /// if let reply { print(reply) }
    /// ```
    ///
    /// The upgrade request takes the client's whole request path, as
    /// ``CourierClient/stream(_:body:)-(CourierRequest<Value>,_)`` does: interceptors, default
    /// headers, credentials (and their challenges), cookies, redirects, the proxy, the TLS
    /// policy and pins, the retry policy, observers and spans. It goes over a connection of
    /// its own, HTTP/1.1 (a `wss` origin is offered nothing else by ALPN), that the client's
    /// own transport opens; a `ws` or `wss` URL stands for `http` or `https`. The connection
    /// does not count against the client's limits once it is open.
    ///
    /// - Parameters:
    ///   - request: a GET request; its response type is not used.
    ///   - configuration: frame and message limits, pings, compression and subprotocols.
    ///   - body: what to do with the connection; what it returns is returned.
    /// - Throws: ``CourierError``: ``CourierError/Kind/validationFailed`` with the response when
    ///   the server answers with another status than 101, ``CourierError/Kind/malformedResponse``
    ///   when its 101 does not complete the handshake, ``CourierError/Kind/invalidConfiguration``
    ///   when the client's transport cannot hand a connection over; the request's own failures;
    ///   what `body` throws.
    public func webSocket<Value, Result>(
        _ request: CourierRequest<Value>,
        configuration: CourierWebSocket.Configuration = .init(),
        _ body: (CourierWebSocket) async throws -> Result
    ) async throws -> Result {
        try configuration.validate()
        let handshake = Handshake(configuration: configuration)
        let prepared = try handshake.prepare(request)
        let opened = OpenedChannel()
        let session = Session(pingInterval: configuration.pingInterval)
        let upgrade = ConnectionUpgrade { channel in
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: configuration.maximumFrameSize)))
            try sync.addHandler(WebSocketFrameEncoder())
            try sync.addHandler(FrameWatch(session: session))
            try sync.addHandler(WebSocketProtocolErrorHandler())
            opened.set(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
        }
        let response = try await stream(prepared, upgrade: upgrade) { streamed -> CourierResponse in
            guard streamed.head.status == 101 else {
                // The answer is told whole, as far as it is small.
                return try await streamed.collected(upTo: 1 << 16)
            }
            return streamed.head
        }
        guard response.status == 101 else {
            throw CourierError(
                .validationFailed, "The server answered \(response.status) instead of switching to WebSocket (101).", url: response.url,
                response: response
            )
        }
        guard let channel = opened.take() else {
            upgrade.channel?.close(promise: nil)
            throw CourierError(
                .invalidConfiguration,
                "The client's transport cannot hand a connection over to WebSocket; open WebSockets with a CourierClient that uses its own transport.",
                url: response.url, response: response
            )
        }
        let agreed: (extensions: [any WebSocketExtension], subprotocol: String?)
        do {
            agreed = try handshake.check(response)
        } catch {
            channel.channel.close(promise: nil)
            throw error
        }
        session.url = Handshake.webSocketURL(response.url)
        return try await run(channel, response: response, agreed: agreed, session: session, configuration: configuration, body)
    }

    /// Runs swift-websocket's handler on `channel` beside `body`, which gets the connection in
    /// the caller's task; the handler's close handshake ends it.
    private func run<Result>(
        _ channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, response: CourierResponse,
        agreed: (extensions: [any WebSocketExtension], subprotocol: String?), session: Session,
        configuration: CourierWebSocket.Configuration, _ body: (CourierWebSocket) async throws -> Result
    ) async throws -> Result {
        let meeting = Meeting()
        let handlerConfiguration = WebSocketHandler.Configuration(
            extensions: agreed.extensions,
            // Pings are sent and answered by FrameWatch, whether or not the messages are read.
            autoPing: .disabled,
            closeTimeout: configuration.closeTimeout,
            validateUTF8: true,
            maxFrameSize: configuration.maximumFrameSize
        )
        let context = SocketContext(logger: self.configuration.logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    _ = try await WebSocketHandler.handle(
                        type: .client, configuration: handlerConfiguration, asyncChannel: channel, context: context
                    ) { inbound, outbound, _ in
                        meeting.open(inbound, outbound)
                        try await meeting.bodyEnded()
                    }
                    meeting.fail(session.endError() ?? CourierError(.connectionFailed, "The WebSocket connection closed.", url: response.url))
                } catch {
                    meeting.fail(session.error(for: error))
                }
            }
            let outcome: Swift.Result<Result, any Error>
            do {
                let (inbound, outbound) = try await meeting.opened()
                let socket = CourierWebSocket(
                    response: response, subprotocol: agreed.subprotocol, inbound: inbound, outbound: outbound, session: session,
                    channel: channel.channel, configuration: configuration
                )
                outcome = .success(try await body(socket))
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success: meeting.end(nil)
            // The handler closes with the code of the frames' own failure (1009 for a message
            // too large), else 1011.
            case .failure(let error): meeting.end(session.failure ?? error)
            }
            // The close handshake ends the handler; its failures are told by the messages.
            while !group.isEmpty {
                do { try await group.next() } catch {}
            }
            return try outcome.get()
        }
    }
}

/// The logger swift-websocket's handler writes to.
private struct SocketContext: WebSocketContext {
    let logger: Logger
}
