import Courier
import Foundation
import NIOCore
import NIOWebSocket
import WSCore

/// An open WebSocket connection, handed to the closure of
/// ``Courier/CourierClient/webSocket(_:configuration:_:)``: the messages the server sends, and
/// the means to send messages and to close.
///
/// ```swift
/// try await client.webSocket(CourierRequest<Void>(path: "wss://example.com/feed")) { socket in
///     try await socket.send("subscribe prices")
///     for try await message in socket.messages {
///         if case .text(let text) = message { print(text) }
///     }
/// }
/// ```
///
/// Pings from the server are answered, and the client pings the server itself (see
/// ``Configuration/pingInterval``). The connection is closed when the closure returns.
public struct CourierWebSocket: Sendable {
    /// A message, put together from its frames.
    public enum Message: Sendable, Hashable, CustomStringConvertible {
        /// A text message.
        case text(String)
        /// A binary message.
        case binary(Data)

        public var description: String {
            switch self {
            case .text(let text): "text: \(text)"
            case .binary(let data): "binary: \(data.count) bytes"
            }
        }
    }

    /// The server's answer to the upgrade (status 101), with its fields.
    public let response: CourierResponse
    /// The subprotocol the server chose among those asked for, if any.
    public let subprotocol: String?
    /// The messages the server sends, in order, until either side closes. Iterate it once.
    public let messages: Messages
    private let outbound: WebSocketOutboundWriter
    private let url: URL
    private let session: Session
    private let channel: any Channel
    private let closeTimeout: Duration

    /// The close frame the server sent, once it came: its code and reason.
    public var closure: Closure? { session.closure }

    init(
        response: CourierResponse, subprotocol: String?, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, session: Session,
        channel: any Channel, configuration: Configuration
    ) {
        let maximumMessageSize = configuration.maximumMessageSize
        self.channel = channel
        self.closeTimeout = configuration.closeTimeout
        self.response = response
        self.subprotocol = subprotocol
        self.messages = Messages(inbound: inbound, session: session, maximumMessageSize: maximumMessageSize)
        self.outbound = outbound
        self.url = Handshake.webSocketURL(response.url)
        self.session = session
    }

    /// Sends a text message, in frames of at most ``Configuration/maximumFrameSize`` bytes.
    public func send(_ text: String) async throws {
        try await sending { try await outbound.writeTextMessage(text) }
    }

    /// Sends a binary message, in frames of at most ``Configuration/maximumFrameSize`` bytes.
    public func send(_ data: Data) async throws {
        try await sending { try await outbound.writeBinaryMessage(ByteBuffer(bytes: data)) }
    }

    /// Sends `message`.
    public func send(_ message: Message) async throws {
        switch message {
        case .text(let text): try await send(text)
        case .binary(let data): try await send(data)
        }
    }

    /// Starts the close handshake with `code` and `reason`: the server answers with its own
    /// close, after which ``messages`` ends. A server that has not answered within
    /// ``Configuration/closeTimeout`` has its connection closed.
    public func close(_ code: CloseCode = .normalClosure, reason: String? = nil) async throws {
        try await sending { try await outbound.close(code.errorCode, reason: reason) }
        let channel = self.channel
        channel.eventLoop.scheduleTask(in: .nanoseconds(closeTimeout.nanoseconds)) {
            channel.close(promise: nil)
        }
    }

    private func sending(_ write: () async throws -> Void) async throws {
        do {
            try await write()
        } catch let error as CourierError {
            throw error
        } catch {
            throw CourierError(
                .connectionFailed, "The WebSocket connection is closed; nothing more can be sent on it.", url: url, underlyingError: error
            )
        }
    }

    /// The messages of a WebSocket connection. Ends after the close handshake; throws
    /// ``Courier/CourierError`` when the connection ends without one (``CourierError/Kind/connectionFailed``,
    /// or ``CourierError/Kind/timeout`` when the server stopped answering pings) and
    /// ``CourierError/Kind/responseTooLarge`` for a message past
    /// ``Configuration/maximumMessageSize`` (the connection is closed with code 1009).
    public struct Messages: AsyncSequence, Sendable {
        public typealias Element = Message

        private let inbound: WebSocketInboundStream
        private let session: Session
        private let maximumMessageSize: Int

        init(inbound: WebSocketInboundStream, session: Session, maximumMessageSize: Int) {
            self.inbound = inbound
            self.session = session
            self.maximumMessageSize = maximumMessageSize
        }

        public func makeAsyncIterator() -> Iterator {
            Iterator(frames: inbound.makeAsyncIterator(), session: session, maximumMessageSize: maximumMessageSize)
        }

        /// Iterates the messages.
        public struct Iterator: AsyncIteratorProtocol {
            var frames: WebSocketInboundStream.AsyncIterator
            let session: Session
            let maximumMessageSize: Int

            public mutating func next() async throws -> Message? {
                let message: WebSocketMessage?
                do {
                    message = try await frames.nextMessage(maxSize: maximumMessageSize)
                } catch {
                    session.failed(error)
                    throw session.error(for: error)
                }
                switch message {
                case .text(let text): return .text(text)
                case .binary(let buffer): return .binary(Data(buffer.readableBytesView))
                case nil:
                    if let error = session.endError() { throw error }
                    return nil
                }
            }
        }
    }
}
