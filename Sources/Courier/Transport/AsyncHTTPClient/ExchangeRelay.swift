import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2

/// Carries what AsyncHTTPClient's delegate API does not pass between Courier's exchanges and
/// the connections that carry them: trailers both ways, and the early end of a response that
/// came while its request body was still being sent.
///
/// AsyncHTTPClient 1.37's delegate API drops a response's trailers and ends every request body
/// without any; its connections still parse and write them. And when a response of status 300
/// or more ends before the request body does, it closes the connection but leaves the body's
/// pending write unanswered and the request open until the body ends, which a body waiting on
/// that write never does. Each exchange is therefore given a number, sent in the request head
/// as the field ``fieldName``; the ``ExchangeTap`` on every connection (HTTP/1.1) and stream
/// (HTTP/2) takes that field out before the head is encoded, so it never reaches the wire,
/// then hands the response's trailers and early end here and puts the body's trailers into
/// the end of the request.
final class ExchangeRelay: Sendable {
    /// The field that names an exchange between the transport and its connections. A field
    /// of this name set by the caller is removed with it.
    static let fieldName = "~courier-exchange"

    /// An exchange, as the transport knows it.
    struct Opened: Sendable {
        let number: UInt64
        /// The value of ``fieldName`` in its request head.
        let marker: String
        /// The watch on its response's early end, when its body is streamed.
        let earlyEnd: EarlyEnd?
    }

    private struct State {
        var last: UInt64 = 0
        /// The trailers waiting to be written (a request's) or read (a response's), by exchange.
        var sent: [UInt64: HTTPHeaders] = [:]
        var received: [UInt64: HTTPHeaders] = [:]
        /// The exchanges whose request body is streamed, by number.
        var watched: [UInt64: EarlyEnd] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// Numbers the exchange of `request`.
    func open(_ request: CourierHTTPRequest) -> Opened {
        open(streamsBody: request.body?.isStreamed == true, sendsTrailers: request.body?.mayHaveTrailers == true)
    }

    /// Numbers a new exchange; `streamsBody` when its body is written piece by piece, and
    /// `sendsTrailers` when that body may end with trailers.
    func open(streamsBody: Bool, sendsTrailers: Bool) -> Opened {
        let earlyEnd = streamsBody ? EarlyEnd() : nil
        let number = state.withLockedValue { state in
            state.last &+= 1
            if let earlyEnd { state.watched[state.last] = earlyEnd }
            return state.last
        }
        let marker = String(number) + (streamsBody ? "s" : "") + (sendsTrailers ? "t" : "")
        return Opened(number: number, marker: marker, earlyEnd: earlyEnd)
    }

    /// The request body of exchange `number` ended with `trailers`.
    func send(_ trailers: Headers, for number: UInt64) {
        guard !trailers.isEmpty else { return }
        var fields = HTTPHeaders()
        for field in trailers { fields.add(name: field.name, value: field.value) }
        state.withLockedValue { $0.sent[number] = fields }
    }

    /// The trailers to end exchange `number`'s request with, if its body gave any.
    func trailersToSend(for number: UInt64) -> HTTPHeaders? {
        state.withLockedValue { $0.sent.removeValue(forKey: number) }
    }

    /// The response of exchange `number` ended with `trailers`.
    func receive(_ trailers: HTTPHeaders, for number: UInt64) {
        state.withLockedValue { $0.received[number] = trailers }
    }

    /// The response of exchange `number`, of status 300 or more, ended: its body is not
    /// wanted any more.
    func responseEnded(_ number: UInt64) {
        state.withLockedValue { $0.watched[number] }?.end()
    }

    /// Ends exchange `number`: the trailers its response ended with (none if it has not
    /// ended), after which nothing is kept for it.
    func close(_ number: UInt64) -> HTTPHeaders? {
        state.withLockedValue { state in
            state.sent.removeValue(forKey: number)
            state.watched.removeValue(forKey: number)
            return state.received.removeValue(forKey: number)
        }
    }
}

/// The early end of one exchange's response, for the task that writes its request body: a
/// write waiting for AsyncHTTPClient is released, and the task is cancelled, so that whatever
/// it waits on (the next piece of a body produced elsewhere) lets go.
final class EarlyEnd: Sendable {
    private struct State {
        var isEnded = false
        /// The write waiting for AsyncHTTPClient, and its number.
        var waiter: (write: UInt64, continuation: CheckedContinuation<Void, any Error>)?
        var writes: UInt64 = 0
        var task: Task<Void, Never>?
    }

    private let state = NIOLockedValueBox(State())

    /// Whether the response ended before the body did.
    var isEnded: Bool { state.withLockedValue { $0.isEnded } }

    /// The task that writes the body, cancelled if the response ends first.
    func watch(_ task: Task<Void, Never>) {
        let ended = state.withLockedValue { state in
            state.task = task
            return state.isEnded
        }
        if ended { task.cancel() }
    }

    /// Writes `part` and waits until AsyncHTTPClient takes more, or the response ends.
    ///
    /// - Throws: ``ResponseEndedEarly`` once the response has ended; what the write fails with.
    func write(_ part: IOData, to writer: HTTPClient.Body.StreamWriter) async throws {
        let written = writer.write(part)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let write = state.withLockedValue { state -> UInt64? in
                guard !state.isEnded else { return nil }
                state.writes &+= 1
                state.waiter = (state.writes, continuation)
                return state.writes
            }
            guard let write else { return continuation.resume(throwing: ResponseEndedEarly()) }
            written.whenComplete { [state] result in
                let waiter = state.withLockedValue { state -> CheckedContinuation<Void, any Error>? in
                    guard let waiter = state.waiter, waiter.write == write else { return nil }
                    state.waiter = nil
                    return waiter.continuation
                }
                waiter?.resume(with: result)
            }
        }
    }

    /// The response ended first.
    func end() {
        let (waiter, task) = state.withLockedValue { state in
            state.isEnded = true
            defer { state.waiter = nil }
            return (state.waiter?.continuation, state.task)
        }
        waiter?.resume(throwing: ResponseEndedEarly())
        task?.cancel()
    }
}

/// The response ended before the request body did: the rest of the body is not sent.
struct ResponseEndedEarly: Error {}

/// Sits between AsyncHTTPClient's request handler and the HTTP/1 codec (the connection's on
/// HTTP/1.1, the stream's translation on HTTP/2): takes the exchange number out of each
/// request head, ends the request with the trailers its body gave, and tells the
/// ``ExchangeRelay`` of the response's trailers and of its early end. All state is confined
/// to the channel's loop.
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
        var bodyEnded = false
        var status: UInt = 0
    }

    private let relay: ExchangeRelay
    private var current: Current?

    init(relay: ExchangeRelay) {
        self.relay = relay
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            current = nil
            if let marker = head.headers.first(name: ExchangeRelay.fieldName) {
                head.headers.remove(name: ExchangeRelay.fieldName)
                let digits = marker.prefix { $0.isASCII && $0.isNumber }
                let flags = marker.dropFirst(digits.count)
                current = UInt64(digits).map { Current(number: $0, streamsBody: flags.contains("s"), sendsTrailers: flags.contains("t")) }
            }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end(nil):
            current?.bodyEnded = true
            guard let current, current.sendsTrailers, let trailers = relay.trailersToSend(for: current.number) else {
                context.write(data, promise: promise)
                return
            }
            context.write(wrapOutboundOut(.end(trailers)), promise: promise)
        case .end:
            current?.bodyEnded = true
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head) where head.status.code >= 200:
            current?.status = head.status.code
        case .end(let trailers):
            if let current {
                if let trailers, !trailers.isEmpty { relay.receive(trailers, for: current.number) }
                // AsyncHTTPClient closes the connection then, and waits for a body that
                // nothing will take any more.
                if current.streamsBody, !current.bodyEnded, current.status >= 300 { relay.responseEnded(current.number) }
            }
        default:
            break
        }
        context.fireChannelRead(data)
    }

    /// Adds a tap after the response decoder (and its status guard) of an HTTP/1.1
    /// connection's pipeline. Call on its loop.
    static func install(on channel: any Channel, relay: ExchangeRelay) throws {
        let sync = channel.pipeline.syncOperations
        let guarded = try sync.handler(type: StatusCodeGuard.self)
        try sync.addHandler(ExchangeTap(relay: relay), position: .after(guarded))
    }

    /// Adds a tap after the HTTP/2-to-HTTP/1 translation of `stream`. Call on its loop.
    static func install(onStream stream: any Channel, relay: ExchangeRelay) throws {
        let sync = stream.pipeline.syncOperations
        let translation = try sync.handler(type: HTTP2FramePayloadToHTTP1ClientCodec.self)
        try sync.addHandler(ExchangeTap(relay: relay), position: .after(translation))
    }
}
