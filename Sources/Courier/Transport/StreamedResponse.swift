import Foundation
import NIOConcurrencyHelpers

/// A response whose head has arrived and whose body is read piece by piece.
///
/// ``CourierClient/stream(_:body:)-(CourierHTTPRequest,_)`` (and its typed variant) and
/// ``Transport/stream(_:deadline:body:)`` hand one to their closure. The body is paced by its reader: the transport stops reading from the network
/// while a bounded amount (the built-in transport holds at most about 512 KiB) waits to be
/// taken, so a body of any size costs a bounded amount of memory.
public struct StreamedResponse: Sendable {
    /// The status, headers, URL and timing; its ``CourierResponse/body`` is empty.
    public var head: CourierResponse
    /// The body, in pieces as they arrive.
    public var body: ResponseBodyStream

    /// Creates a streamed response; custom transports use this.
    public init(head: CourierResponse, body: ResponseBodyStream) {
        self.head = head
        self.body = body
    }

    /// A response that arrived whole, its body handed over as one piece.
    init(whole response: consuming CourierResponse) {
        let bytes = response.body
        var head = consume response
        head.body = Data()
        let trailers = head.trailers
        head.trailers = Headers()
        self.init(head: head, body: ResponseBodyStream(collected: bytes, trailers: trailers))
    }

    /// The head with the whole body, read up to `maximumBytes`; see
    /// ``ResponseBodyStream/collect(upTo:)``.
    public consuming func collected(upTo maximumBytes: Int) async throws -> CourierResponse {
        try await collectedOnCallersExecutor(upTo: maximumBytes)
    }

    /// ``collected(upTo:)`` where its caller runs: the request path's own step, which need not
    /// switch executors to run it.
    nonisolated(nonsending) consuming func collectedOnCallersExecutor(upTo maximumBytes: Int) async throws -> CourierResponse {
        // Changed in place: a response handed over whole is not copied.
        head.body = try await body.collectOnCallersExecutor(upTo: maximumBytes)
        head.trailers = body.trailers ?? Headers()
        head.timing.endIfOpen()
        return head
    }

    /// The head, with the body too when the transport had already collected it.
    var headWithCollectedBody: CourierResponse {
        guard let bytes = body.collectedBytes else { return head }
        var response = head
        response.body = bytes
        response.trailers = body.trailers ?? Headers()
        return response
    }
}

/// The pieces of a response body, in order. A piece holds whatever arrived since the reader
/// took the previous one, so a reader that falls behind gets fewer, larger pieces.
///
/// Iterate it once. The sequence ends after the last piece, or throws ``CourierError`` when the
/// exchange fails part way (a dropped connection, a timeout, a cancellation). Breaking out of
/// the loop early is fine: what is left unread is dropped with the connection when the
/// exchange ends.
public struct ResponseBodyStream: AsyncSequence, Sendable {
    /// A piece of the body.
    public typealias Element = Data

    fileprivate enum Source: Sendable {
        case pieces(@Sendable () async throws -> Data?)
        case collected(Data)
    }

    private let source: Source
    private let trailerSource: @Sendable () -> Headers?

    /// Creates a body whose pieces come from `next`, which returns `nil` after the last one.
    ///
    /// - Parameters:
    ///   - next: the next piece, or `nil` after the last one.
    ///   - trailers: the trailer fields received after the last piece, or `nil` while they
    ///     have not arrived; a transport that receives none leaves the default, and the body
    ///     then has none.
    public init(next: @escaping @Sendable () async throws -> Data?, trailers: @escaping @Sendable () -> Headers? = { Headers() }) {
        self.source = .pieces(next)
        self.trailerSource = trailers
    }

    /// Creates a body that has already arrived whole: it is delivered as one piece (none when
    /// it is empty), followed by `trailers`. Transports that collect bodies themselves use
    /// this.
    public init(collected bytes: Data, trailers: Headers = Headers()) {
        self.source = .collected(bytes)
        self.trailerSource = { trailers }
    }

    /// The trailer fields the server sent after the body (RFC 9110 §6.5), such as a checksum
    /// or a final status: `nil` until the body has been read to its end, then the fields,
    /// empty when none came. URLSession cannot receive trailers; its bodies have none.
    ///
    /// ```swift
    /// let (size, checksum) = try await client.stream(request) { response in
    ///     var size = 0
    ///     for try await piece in response.body { size += piece.count }
    ///     return (size, response.body.trailers?["X-Checksum"])
    /// }
    /// ```
    public var trailers: Headers? { trailerSource() }

    /// The whole body, when it had already arrived whole.
    var collectedBytes: Data? {
        if case .collected(let bytes) = source { return bytes }
        return nil
    }

    /// Reads the rest of the body into one value.
    ///
    /// - Parameter maximumBytes: the largest body accepted.
    /// - Throws: ``CourierError/Kind/responseTooLarge`` as soon as the body grows past
    ///   `maximumBytes`; what the sequence throws.
    public func collect(upTo maximumBytes: Int) async throws -> Data {
        try await collectOnCallersExecutor(upTo: maximumBytes)
    }

    /// ``collect(upTo:)`` where its caller runs (see
    /// ``StreamedResponse/collectedOnCallersExecutor(upTo:)``).
    nonisolated(nonsending) func collectOnCallersExecutor(upTo maximumBytes: Int) async throws -> Data {
        switch source {
        case .collected(let bytes):
            guard bytes.count <= maximumBytes else { throw ResponseBodyStream.tooLarge(maximumBytes) }
            return bytes
        case .pieces(let next):
            var bytes = Data()
            while let piece = try await next() {
                guard piece.count <= maximumBytes - bytes.count else { throw ResponseBodyStream.tooLarge(maximumBytes) }
                if bytes.isEmpty { bytes = piece } else { bytes.append(piece) }
            }
            return bytes
        }
    }

    /// Reads and drops the rest of a small body, so that its connection can serve another
    /// request; stops at `maximumBytes` or the first failure, leaving the rest to be dropped
    /// with the connection.
    func discard(upTo maximumBytes: Int = 64 * 1024) async {
        guard case .pieces(let next) = source else { return }
        var read = 0
        while read <= maximumBytes, let piece = try? await next() {
            read += piece.count
        }
    }

    /// The same body, whose pieces `recorder` also keeps as the reader takes them.
    func recorded(by recorder: BodyRecorder) -> ResponseBodyStream {
        switch source {
        case .collected(let bytes):
            recorder.take(bytes)
            recorder.take(nil)
            return self
        case .pieces(let next):
            return ResponseBodyStream(
                next: {
                    let piece = try await next()
                    recorder.take(piece)
                    return piece
                },
                trailers: trailerSource
            )
        }
    }

    /// The error for a body past `limit` bytes.
    package static func tooLarge(_ limit: Int) -> CourierError {
        CourierError(
            .responseTooLarge,
            "The response body is larger than the \(limit)-byte limit; raise CourierRequest.maximumBodySize or ClientConfiguration.limits.maximumBodySize, or stream it with CourierClient.stream(_:body:) or CourierClient.download(_:to:options:)."
        )
    }

    /// Reads the body's pieces.
    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate var source: Source

        /// The next piece, or `nil` after the last one.
        public mutating func next() async throws -> Data? {
            switch source {
            case .pieces(let next):
                return try await next()
            case .collected(let bytes):
                source = .collected(Data())
                return bytes.isEmpty ? nil : bytes
            }
        }
    }

    /// Returns an iterator over the pieces.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: source)
    }
}

/// Keeps a copy of the pieces of a streamed body as its reader takes them, up to a limit: the
/// body an HTTP cache stores once the reader has read it to its end.
final class BodyRecorder: Sendable {
    private struct State {
        /// The pieces so far; `nil` once the body grew past the limit.
        var bytes: Data? = Data()
        var hasEnded = false
    }

    private let limit: Int
    private let state = NIOLockedValueBox(State())

    /// A recorder that keeps at most `limit` bytes, and gives up on a larger body.
    init(limit: Int) {
        self.limit = limit
    }

    /// The reader took `piece`, or the end (`nil`).
    func take(_ piece: Data?) {
        state.withLockedValue { state in
            guard let piece else {
                state.hasEnded = true
                return
            }
            guard let bytes = state.bytes, piece.count <= limit - bytes.count else {
                state.bytes = nil
                return
            }
            state.bytes!.append(piece)
        }
    }

    /// The whole body, once the reader has read it to its end within the limit.
    var wholeBody: Data? {
        state.withLockedValue { $0.hasEnded ? $0.bytes : nil }
    }
}
