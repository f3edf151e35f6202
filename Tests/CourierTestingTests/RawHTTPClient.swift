import Foundation
import NIOCore
import NIOPosix

/// A parsed HTTP/1.1 response, as read off the wire by ``RawConnection``.
struct RawResponse {
    var statusLine: String
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    /// The first value of header `name` (case-insensitive).
    func header(_ name: String) -> String? {
        self.headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// All values of header `name` (case-insensitive).
    func headerValues(_ name: String) -> [String] {
        self.headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
    }

    var text: String { String(decoding: self.body, as: UTF8.self) }

    /// The body parsed as a JSON object.
    func jsonObject() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(self.body)) as? [String: Any] else {
            throw RawClientError.notJSONObject(self.text)
        }
        return object
    }
}

enum RawClientError: Error {
    case connectionClosed(received: Int)
    case malformed(String)
    case notJSONObject(String)
}

/// A minimal raw TCP client: sends bytes and parses HTTP/1.1 responses without any HTTP library.
///
/// The connection closes itself after 60 seconds as a safety net, so a broken server fails a test instead of
/// hanging it.
final class RawConnection {
    private let channel: any Channel
    private var iterator: AsyncStream<ByteBuffer>.Iterator
    private var buffer: [UInt8] = []
    private(set) var isClosedByPeer = false

    private init(channel: any Channel, stream: AsyncStream<ByteBuffer>) {
        self.channel = channel
        self.iterator = stream.makeAsyncIterator()
    }

    static func connect(port: Int) async throws -> RawConnection {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ForwardingHandler(continuation: continuation))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        channel.eventLoop.scheduleTask(in: .seconds(60)) { channel.close(promise: nil) }
        return RawConnection(channel: channel, stream: stream)
    }

    func send(_ text: String) async throws {
        try await self.send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) async throws {
        try await self.channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    func close() async {
        try? await self.channel.close()
    }

    /// Reads more bytes into the buffer; returns `false` at end of stream (or on a connection error).
    private func fill() async -> Bool {
        guard let chunk = await self.iterator.next() else {
            self.isClosedByPeer = true
            return false
        }
        self.buffer.append(contentsOf: chunk.readableBytesView)
        return true
    }

    /// Reads until the peer closes the connection and returns everything not consumed yet.
    func readToEnd(limit: Int = 64 * 1024 * 1024) async -> [UInt8] {
        while self.buffer.count < limit, await self.fill() {}
        defer { self.buffer = [] }
        return self.buffer
    }

    /// Reads at least `count` bytes (fewer if the peer closes first) and returns them all without consuming.
    func peek(atLeast count: Int) async -> [UInt8] {
        while self.buffer.count < count, await self.fill() {}
        return self.buffer
    }

    /// Reads one complete response (skipping interim 1xx responses).
    func readResponse(toHead: Bool = false) async throws -> RawResponse {
        while true {
            let parsed = try ResponseParser.parse(self.buffer, toHead: toHead, atEOF: self.isClosedByPeer)
            if let (response, consumed) = parsed {
                self.buffer.removeFirst(consumed)
                if (100...199).contains(response.status) && response.status != 101 { continue }
                return response
            }
            guard await self.fill() else {
                if let (response, consumed) = try ResponseParser.parse(self.buffer, toHead: toHead, atEOF: true) {
                    self.buffer.removeFirst(consumed)
                    return response
                }
                throw RawClientError.connectionClosed(received: self.buffer.count)
            }
        }
    }
}

/// Forwards received bytes into an `AsyncStream`, which finishes when the connection closes.
private final class ForwardingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let continuation: AsyncStream<ByteBuffer>.Continuation

    init(continuation: AsyncStream<ByteBuffer>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.continuation.yield(self.unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Sends one request on a new connection (with `Connection: close`) and returns the response.
func rawRequest(
    _ port: Int,
    _ method: String = "GET",
    _ target: String,
    headers: [String] = [],
    body: [UInt8] = []
) async throws -> RawResponse {
    let connection = try await RawConnection.connect(port: port)
    var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for header in headers { request += header + "\r\n" }
    if !body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" {
        request += "Content-Length: \(body.count)\r\n"
    }
    request += "\r\n"
    try await connection.send(Array(request.utf8) + body)
    let response = try await connection.readResponse(toHead: method == "HEAD")
    await connection.close()
    return response
}
