import NIOCore
import NIOHTTP1

/// What the `/duplex` route answers, piece by piece while the request body is still arriving,
/// apart from the protocol that carries it (HTTP/1.1 here, HTTP/2 in the test support's
/// server).
///
/// - `/duplex`: each piece of the request body is sent back as soon as it arrives; the
///   response ends when the request does, with the trailers `received-bytes` and each trailer
///   of the request echoed as `echo-NAME`.
/// - `/duplex?speak=N`: the server sends `A`, then one more `A` each time it has received as
///   many bytes as it sent, and ends the response (trailer `received-bytes`) once it has sent
///   N and received them back, before the request body has ended.
/// - `/duplex?refuse=S`: the server answers status S (400 to 599) with an empty body as soon
///   as it has the request head, and reads nothing more of the connection (HTTP/1.1): a
///   server that turns an upload down without taking it.
///
/// - `/conformance/echo` and `/conformance/speak`: the echo and the speaker of 1,000 `A`s
///   that the conformance suite of Swift's proposed standard HTTP client API expects; the
///   echo ends with the request's own trailers, if it had any.
///
/// A client that reads one piece ahead of what it sends, or sees nothing of the response
/// before its request has ended, never gets past the first piece.
package struct DuplexScript: Sendable {
    /// The number of `A`s to send, or `nil` to echo.
    private let speak: Int?
    /// The status of a refusal sent at once, if the request is refused.
    package let refusal: Int?
    private var sent = 0
    /// Whether the response ends with the request's trailers alone, as the conformance
    /// suite's server does, rather than with `received-bytes` too.
    private var isConformance = false
    /// The bytes of the request body received so far.
    package private(set) var receivedBytes = 0
    /// Whether the response has ended.
    package private(set) var hasEnded = false

    /// The script for a request to `target` (path and query), or `nil` when `target` is not
    /// the route's.
    package init?(target: String) {
        let path = target.prefix { $0 != "?" }
        var speak: Int?
        var refusal: Int?
        switch path {
        case "/duplex": break
        case "/conformance/echo": isConformance = true
        case "/conformance/speak": (speak, isConformance) = (1000, true)
        default: return nil
        }
        let query = target.dropFirst(path.count + 1)
        for item in query.split(separator: "&") {
            if item.hasPrefix("speak=") {
                speak = Int(item.dropFirst("speak=".count)).map { Swift.max(1, Swift.min($0, 1_000_000)) }
            } else if item.hasPrefix("refuse=") {
                refusal = Int(item.dropFirst("refuse=".count)).map { Swift.max(400, Swift.min($0, 599)) }
            }
        }
        self.speak = speak
        self.refusal = refusal
        if refusal != nil { hasEnded = true }
    }

    /// What to send right after the response head.
    package mutating func opening() -> [UInt8] {
        guard speak != nil else { return [] }
        sent = 1
        return [UInt8(ascii: "A")]
    }

    /// `piece` of the request body arrived: what to send, and whether the response ends after it.
    package mutating func received(_ piece: ByteBuffer) -> (send: [UInt8], ends: Bool) {
        receivedBytes += piece.readableBytes
        guard !hasEnded else { return ([], false) }
        guard let speak else { return (Array(piece.readableBytesView), false) }
        guard receivedBytes >= sent else { return ([], false) }
        if sent < speak {
            sent += 1
            return ([UInt8(ascii: "A")], false)
        }
        hasEnded = true
        return ([], true)
    }

    /// The request ended with `trailers`: whether the response ends now (it has not yet).
    package mutating func requestEnded() -> Bool {
        defer { hasEnded = true }
        return !hasEnded
    }

    /// The trailers the response ends with, the request's `trailers` echoed in echo mode.
    package func trailers(echoing trailers: [(String, String)]) -> [(String, String)] {
        if isConformance { return speak == nil ? trailers : [] }
        var fields = [("received-bytes", String(receivedBytes))]
        if speak == nil { fields += trailers.map { ("echo-" + $0.0, $0.1) } }
        return fields
    }
}

/// Runs a ``DuplexScript`` on an HTTP/1.1 connection of ``TestServer``: the response head goes
/// out with the request's, and every piece as soon as the script gives it.
final class DuplexResponder {
    private var script: DuplexScript
    private let head: HTTPRequestHead
    private var body: [UInt8] = []

    init?(head: HTTPRequestHead) {
        guard let script = DuplexScript(target: head.uri) else { return nil }
        self.script = script
        self.head = head
    }

    /// Writes the response head and the script's opening, or the refusal.
    func start(context: ChannelHandlerContext) {
        if let refusal = script.refusal {
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
            let status = HTTPResponseStatus(statusCode: refusal)
            let head = HTTPResponseHead(version: head.version, status: status, headers: ["Content-Length": "0"])
            context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
            return
        }
        var headers = HTTPHeaders([("Content-Type", "application/octet-stream"), ("Transfer-Encoding", "chunked")])
        if !head.isKeepAlive { headers.add(name: "Connection", value: "close") }
        context.write(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
        send(script.opening(), ends: false, context: context)
    }

    /// Takes a piece of the request body and answers it.
    func take(_ piece: ByteBuffer, context: ChannelHandlerContext) {
        if body.count + piece.readableBytes <= TestServerHandler.maximumBodySize { body += piece.readableBytesView }
        let (bytes, ends) = script.received(piece)
        send(bytes, ends: ends, context: context)
    }

    /// The request ended with `trailers`; returns it as recorded.
    func end(trailers: HTTPHeaders?, context: ChannelHandlerContext) -> RecordedRequest {
        let fields = trailers.map { $0.map { ($0.name, $0.value) } } ?? []
        if script.requestEnded() { finish(echoing: fields, context: context) }
        return RecordedRequest(head: head, body: body)
    }

    private func send(_ bytes: [UInt8], ends: Bool, context: ChannelHandlerContext) {
        if !bytes.isEmpty {
            context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
        }
        if ends { finish(echoing: [], context: context) } else { context.flush() }
    }

    private func finish(echoing trailers: [(String, String)], context: ChannelHandlerContext) {
        let fields = script.trailers(echoing: trailers)
        let ended = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(fields.isEmpty ? nil : HTTPHeaders(fields))))
        if !head.isKeepAlive { ended.assumeIsolated().whenComplete { _ in context.close(promise: nil) } }
    }
}
