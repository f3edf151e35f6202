import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import WSCompression
@_spi(WSInternal) import WSCore

/// The `/deflate` path of ``WebSocketEchoServer``: an echo run by swift-websocket's own
/// server handler, which negotiates permessage-deflate (RFC 7692) with the client.
enum DeflateEcho {
    /// The extensions the server offers.
    static func builders() -> [any WebSocketExtensionBuilder] {
        [WebSocketExtensionFactory.perMessageDeflate(maxDecompressedFrameSize: 1 << 26).build()]
    }

    /// The fields of `head` as swift-http-types fields.
    static func fields(_ head: HTTPRequestHead) -> HTTPFields {
        var fields = HTTPFields()
        for field in head.headers {
            if let name = HTTPField.Name(field.name) { fields.append(HTTPField(name: name, value: field.value)) }
        }
        return fields
    }

    /// The response fields that accept what the client offered.
    static func acceptance(of head: HTTPRequestHead) -> [(String, String)] {
        guard let (fields, _) = try? builders().serverExtensionNegotiation(requestHeaders: fields(head)) else { return [] }
        return fields.map { ($0.name.rawName, $0.value) }
    }

    /// Echoes every message on `channel`, whose pipeline speaks WebSocket frames, until the
    /// client closes. Call on its loop.
    static func run(on channel: any Channel, head: HTTPRequestHead) throws {
        let (_, extensions) = try builders().serverExtensionNegotiation(requestHeaders: fields(head))
        let asyncChannel = try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel)
        let configuration = WebSocketHandler.Configuration(extensions: extensions, autoPing: .disabled, validateUTF8: true, maxFrameSize: 1 << 24)
        Task {
            _ = try? await WebSocketHandler.handle(
                type: .server, configuration: configuration, asyncChannel: asyncChannel, context: EchoContext()
            ) { inbound, outbound, _ in
                for try await message in inbound.messages(maxSize: 1 << 26) {
                    switch message {
                    case .text(let text): try await outbound.writeTextMessage(text)
                    case .binary(let buffer): try await outbound.writeBinaryMessage(buffer)
                    }
                }
            }
        }
    }
}

private struct EchoContext: WebSocketContext {
    let logger = Logger(label: "courier.testing.websocket", factory: { _ in SwiftLogNoOpLogHandler() })
}
