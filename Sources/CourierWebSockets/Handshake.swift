import Courier
import Crypto
import Foundation
import HTTPTypes
import NIOWebSocket
import WSCompression
import WSCore

/// The opening handshake of RFC 6455 §4 for one connection: the fields the upgrade request
/// adds, and the checks of the server's answer.
struct Handshake {
    let key = NIOWebSocketClientUpgrader.randomRequestKey()
    let configuration: CourierWebSocket.Configuration
    /// The extensions offered: permessage-deflate when compression is on.
    let builders: [any WebSocketExtensionBuilder]

    init(configuration: CourierWebSocket.Configuration) {
        self.configuration = configuration
        self.builders =
            configuration.compression
            ? [WebSocketExtensionFactory.perMessageDeflate(maxDecompressedFrameSize: configuration.maximumMessageSize).build()] : []
    }

    /// `request` as an upgrade to WebSocket: `ws` and `wss` URLs as `http` and `https`, the
    /// method GET, the handshake's fields, no HTTP cache, and no validators (any answer but a
    /// 101 is refused by ``CourierClient/webSocket(_:configuration:_:)`` itself).
    func prepare<Value>(_ request: CourierRequest<Value>) throws(CourierError) -> CourierRequest<Value> {
        guard request.method == .get else {
            throw CourierError(.invalidMethod, "A WebSocket opens with a GET request; this one is a \(request.method).")
        }
        var request = request
        let lowered = request.path.lowercased()
        if lowered.hasPrefix("ws://") {
            request.path = "http://" + request.path.dropFirst(5)
        } else if lowered.hasPrefix("wss://") {
            request.path = "https://" + request.path.dropFirst(6)
        }
        request.headers.set(name: "Upgrade", value: "websocket")
        request.headers.set(name: "Connection", value: "Upgrade")
        request.headers.set(name: "Sec-WebSocket-Version", value: "13")
        request.headers.set(name: "Sec-WebSocket-Key", value: key)
        let offers = builders.map { $0.clientRequestHeader() }.filter { !$0.isEmpty }
        if !offers.isEmpty { request.headers.set(name: "Sec-WebSocket-Extensions", value: offers.joined(separator: ", ")) }
        if !configuration.subprotocols.isEmpty {
            request.headers.set(name: "Sec-WebSocket-Protocol", value: configuration.subprotocols.joined(separator: ", "))
        }
        request.cachePolicy = .noStore
        // A 101 is the one answer wanted; any other is refused below, with its body.
        request.validators = []
        return request
    }

    /// `url` with its `http` or `https` scheme as `ws` or `wss`, as errors name it.
    static func webSocketURL(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        switch components.scheme?.lowercased() {
        case "http": components.scheme = "ws"
        case "https": components.scheme = "wss"
        default: return url
        }
        return components.url ?? url
    }

    /// The value `Sec-WebSocket-Accept` must have for `key`.
    static func accept(for key: String) -> String {
        Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// The extensions and the subprotocol the server's `101` agreed to; throws when it does
    /// not complete the handshake.
    func check(_ response: CourierResponse) throws(CourierError) -> (extensions: [any WebSocketExtension], subprotocol: String?) {
        func refuse(_ reason: String) -> CourierError {
            CourierError(.malformedResponse, "The server switched protocols but \(reason); it is not a WebSocket server this client can talk to.", url: response.url, response: response)
        }
        guard response.headers["Upgrade"]?.lowercased() == "websocket" else { throw refuse("did not name websocket in Upgrade") }
        guard let connection = response.headers["Connection"], connection.lowercased().split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "upgrade" }) else {
            throw refuse("did not name upgrade in Connection")
        }
        guard response.headers["Sec-WebSocket-Accept"] == Self.accept(for: key) else { throw refuse("answered the key wrongly in Sec-WebSocket-Accept") }
        var subprotocol: String?
        if let chosen = response.headers["Sec-WebSocket-Protocol"] {
            guard configuration.subprotocols.contains(chosen) else { throw refuse("chose the subprotocol \(chosen), which was not offered") }
            subprotocol = chosen
        }
        var fields = HTTPFields()
        for field in response.headers where field.name.lowercased() == "sec-websocket-extensions" {
            if let name = HTTPField.Name(field.name) { fields.append(HTTPField(name: name, value: field.value)) }
        }
        if !fields.isEmpty, builders.isEmpty { throw refuse("chose extensions that were not offered") }
        do {
            return (try builders.buildClientExtensions(from: fields), subprotocol)
        } catch {
            throw refuse("chose extension parameters that were not offered (\(error))")
        }
    }
}
