import NIOCore
import NIOHTTP1

/// A response produced by a ``TestServer`` route, written by ``TestServerHandler``.
///
/// Not `Sendable`: responses (and their body sources) are created and consumed on the connection's event loop.
struct TestResponse {
    /// The body of a response.
    enum Body {
        /// No body bytes (a `Content-Length: 0` is sent where the status allows a body).
        case empty
        /// A body known up front; sent with `Content-Length`.
        case bytes([UInt8])
        /// A body produced step by step. With a `length` it is sent with `Content-Length`, otherwise chunked.
        case stream(length: Int?, source: any ResponseBodySource)
    }

    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var body: Body
    /// How long to wait before the response head is sent.
    var delay: TimeAmount = .zero
    /// Whether the connection is closed once the response is complete.
    var closeConnection = false
    /// The gate the response waits at before its head is sent (see ``TestServer/openGate(_:)``).
    var gate: String?
    /// The trailer fields sent after a chunked body (ignored for any other body).
    var trailers: HTTPHeaders?

    init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response (`Content-Type: application/json`).
    static func json(_ value: JSONValue, status: HTTPResponseStatus = .ok, headers: HTTPHeaders = [:]) -> TestResponse {
        var allHeaders: HTTPHeaders = ["Content-Type": "application/json"]
        allHeaders.add(contentsOf: headers)
        return TestResponse(status: status, headers: allHeaders, body: .bytes(value.encoded()))
    }

    /// A JSON error response: `{"error": message}`.
    static func error(_ status: HTTPResponseStatus, _ message: String) -> TestResponse {
        .json(.object([("error", .string(message))]), status: status)
    }

    /// A plain-text or otherwise typed response with a fixed body.
    static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> TestResponse {
        TestResponse(status: .ok, headers: ["Content-Type": contentType], body: .bytes(Array(text.utf8)))
    }
}

/// One step of a streamed response body.
enum BodyStep {
    /// Write these bytes (empty arrays are skipped).
    case bytes([UInt8])
    /// Flush, then wait this long before asking for the next step.
    case pause(TimeAmount)
    /// The body is complete.
    case end
    /// Flush what was written, then close the connection: the response ends early, as when a
    /// network drops.
    case abort
}

/// Produces a streamed response body on the connection's event loop. Implementations must be finite.
protocol ResponseBodySource: AnyObject {
    /// The next step of the body. Called only after the previous step has been handled.
    func next() -> BodyStep
}

/// A body made of a fixed list of chunks, optionally with a pause between consecutive chunks.
final class ChunkListSource: ResponseBodySource {
    private var chunks: [[UInt8]]
    private var index = 0
    private var pauseNext = false
    private let pause: TimeAmount

    init(_ chunks: [[UInt8]], pause: TimeAmount = .zero) {
        self.chunks = chunks
        self.pause = pause
    }

    func next() -> BodyStep {
        guard self.index < self.chunks.count else { return .end }
        if self.pauseNext && self.pause > .zero {
            self.pauseNext = false
            return .pause(self.pause)
        }
        let chunk = self.chunks[self.index]
        self.chunks[self.index] = []
        self.index += 1
        self.pauseNext = true
        return .bytes(chunk)
    }
}

/// A body of deterministic pseudo-random bytes (see ``TestServer/bytes(count:seed:)``), generated lazily.
final class GeneratedBytesSource: ResponseBodySource {
    private let seed: UInt64
    private var offset: Int
    private let end: Int
    private let chunkSize: Int
    private let chunkDelay: TimeAmount
    private var pauseNext = false
    private let abortAt: Int?

    /// - Parameters:
    ///   - range: the byte offsets of the resource to send.
    ///   - chunkSize: size of each written chunk.
    ///   - chunkDelay: pause between chunks (zero for none).
    ///   - abortAfter: when given, the connection is closed once this many bytes of the body were sent.
    init(seed: UInt64, range: Range<Int>, chunkSize: Int, chunkDelay: TimeAmount = .zero, abortAfter: Int? = nil) {
        self.seed = seed
        self.offset = range.lowerBound
        self.end = range.upperBound
        self.chunkSize = max(1, chunkSize)
        self.chunkDelay = chunkDelay
        self.abortAt = abortAfter.map { range.lowerBound + max(0, $0) }
    }

    func next() -> BodyStep {
        if let abortAt = self.abortAt, self.offset >= abortAt { return .abort }
        guard self.offset < self.end else { return .end }
        if self.pauseNext && self.chunkDelay > .zero {
            self.pauseNext = false
            return .pause(self.chunkDelay)
        }
        let upper = min(self.end, self.offset + self.chunkSize, self.abortAt ?? .max)
        let chunk = ByteGenerator(seed: self.seed).bytes(in: self.offset..<upper)
        self.offset = upper
        self.pauseNext = true
        return .bytes(chunk)
    }
}
