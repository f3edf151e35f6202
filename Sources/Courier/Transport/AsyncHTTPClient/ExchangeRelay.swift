import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Carries what AsyncHTTPClient's delegate API does not pass between Courier's exchanges and
/// the connections that carry them: trailers both ways, and the early end of a response that
/// came while its request body was still being sent.
///
/// AsyncHTTPClient 1.37's delegate API drops a response's trailers and ends every request body
/// without any; its connections still parse and write them. And when a response of status 300
/// or more ends before the request body does, it closes the connection but leaves the body's
/// pending write unanswered and the request open until the body ends, which a body waiting on
/// that write never does. When one of status below 300 ends first, it delivers the end only
/// after the request's, which a full-duplex body waiting for that end never sends, or, when
/// the reader had not asked for more yet, finishes the request and drops the request's end,
/// leaving the connection leased for ever. And when a connection fails in the middle of a
/// streamed response, it drops the body parts its delegate had not taken yet. Each exchange is therefore given a number, sent in the request head
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
        /// The watch on its response's early end, when its request body or its response body
        /// is streamed.
        let earlyEnd: EarlyEnd?
    }

    /// What the value of ``fieldName`` in a request head says: the exchange's number, then a
    /// letter for each flag (`s` a streamed body, `t` trailers, `r` a streamed response).
    struct Marker: Equatable {
        let number: UInt64
        let streamsBody: Bool
        let sendsTrailers: Bool
        let streamsResponse: Bool

        init(number: UInt64, streamsBody: Bool, sendsTrailers: Bool, streamsResponse: Bool) {
            self.number = number
            self.streamsBody = streamsBody
            self.sendsTrailers = sendsTrailers
            self.streamsResponse = streamsResponse
        }

        /// Reads `value` byte by byte (it is read for every request); `nil` when it does not
        /// start with a number that fits in 64 bits.
        init?(_ value: String) {
            var number: UInt64 = 0
            var hasNumber = false
            var inFlags = false
            var flags: (s: Bool, t: Bool, r: Bool) = (false, false, false)
            for byte in value.utf8 {
                if !inFlags, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    let (times10, overflow) = number.multipliedReportingOverflow(by: 10)
                    let (sum, carry) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
                    guard !overflow, !carry else { return nil }
                    number = sum
                    hasNumber = true
                    continue
                }
                // The number ends at its first other byte; what follows are the flags.
                guard hasNumber else { return nil }
                inFlags = true
                switch byte {
                case UInt8(ascii: "s"): flags.s = true
                case UInt8(ascii: "t"): flags.t = true
                case UInt8(ascii: "r"): flags.r = true
                default: break
                }
            }
            guard hasNumber else { return nil }
            self.init(number: number, streamsBody: flags.s, sendsTrailers: flags.t, streamsResponse: flags.r)
        }

        /// The value of ``fieldName`` that says this.
        var value: String {
            String(number) + (streamsBody ? "s" : "") + (sendsTrailers ? "t" : "") + (streamsResponse ? "r" : "")
        }
    }

    private struct State {
        var last: UInt64 = 0
        /// The trailers waiting to be written (a request's) or read (a response's), by exchange.
        var sent: [UInt64: HTTPHeaders] = [:]
        var received: [UInt64: HTTPHeaders] = [:]
        /// The exchanges whose request body or response body is streamed, by number.
        var watched: [UInt64: EarlyEnd] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// Numbers the exchange of `request`; `streamsResponse` when its response is handed to a
    /// reader piece by piece.
    func open(_ request: CourierHTTPRequest, streamsResponse: Bool) -> Opened {
        open(
            streamsBody: request.body?.isStreamed == true, sendsTrailers: request.body?.mayHaveTrailers == true,
            streamsResponse: streamsResponse
        )
    }

    /// Numbers a new exchange; `streamsBody` when its body is written piece by piece,
    /// `sendsTrailers` when that body may end with trailers, and `streamsResponse` when its
    /// response is handed to a reader piece by piece.
    func open(streamsBody: Bool, sendsTrailers: Bool, streamsResponse: Bool = false) -> Opened {
        let earlyEnd = streamsBody || streamsResponse ? EarlyEnd() : nil
        let number = state.withLockedValue { state in
            state.last &+= 1
            if let earlyEnd { state.watched[state.last] = earlyEnd }
            return state.last
        }
        let marker = Marker(number: number, streamsBody: streamsBody, sendsTrailers: sendsTrailers, streamsResponse: streamsResponse)
        return Opened(number: number, marker: marker.value, earlyEnd: earlyEnd)
    }

    /// The watch of exchange `number`, while it is open and its request or response body is
    /// streamed.
    func earlyEnd(of number: UInt64) -> EarlyEnd? {
        state.withLockedValue { $0.watched[number] }
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

    /// The response of exchange `number`, of status below 300, ended as `completion` says
    /// while its body was still being sent: its reader need not wait for the body.
    func responseCompleted(_ number: UInt64, _ completion: EarlyEnd.Completion) {
        state.withLockedValue { $0.watched[number] }?.complete(completion)
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
