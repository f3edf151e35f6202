import NIOConcurrencyHelpers

/// The end of the path for a streamed request: checks the final response's head with the
/// request's validators, hands the response to the reader, and keeps what the reader returned.
///
/// A response whose status the call's retry policy will retry is not handed over: its body is
/// discarded and its head returned, so the attempt loop retries it as it would a buffered one.
///
/// The interceptors see the head of the response the reader was given (its body empty). An
/// interceptor that answers a request itself, without calling `next`, has its response handed
/// to the reader whole, as one piece.
final class StreamSink<Result: Sendable>: Sendable {
    private struct State {
        var hasStarted = false
        var result: Result?
        var retries: CallRetries?
        var failure: (any Error)?
    }

    private let validators: [ResponseValidator]
    private let reader: @Sendable (StreamedResponse) async throws -> Result
    private let state = NIOLockedValueBox(State())

    init(validators: [ResponseValidator], reader: @escaping @Sendable (StreamedResponse) async throws -> Result) {
        self.validators = validators
        self.reader = reader
    }

    /// Whether the reader was handed a response: from then on, the request is not sent again.
    var hasStarted: Bool { state.withLockedValue { $0.hasStarted } }

    /// What failed once the response was on its way to the reader (a validator, the reader, the
    /// body's connection): the call's outcome, whatever a cache would answer instead.
    var failure: (any Error)? { state.withLockedValue { $0.failure } }

    /// Records what failed once the response was on its way to the reader.
    func fail(_ error: any Error) {
        state.withLockedValue { $0.failure = $0.failure ?? error }
    }

    /// The call's retry decisions, consulted when a head arrives.
    func consults(_ retries: CallRetries) {
        state.withLockedValue { $0.retries = retries }
    }

    /// Validates `streamed` and hands it to the reader; returns its head for the interceptors.
    func consume(_ streamed: StreamedResponse) async throws -> CourierResponse {
        if let retries = state.withLockedValue({ $0.retries }),
            retries.retriesBeforeReading(status: streamed.head.status, retryAfter: streamed.head.headers["Retry-After"])
        {
            await streamed.body.discard()
            return streamed.headWithCollectedBody
        }
        for validator in validators { try validator.validate(streamed.headWithCollectedBody) }
        state.withLockedValue { $0.hasStarted = true }
        let result = try await reader(streamed)
        state.withLockedValue { $0.result = result }
        return streamed.head
    }

    /// What the reader returned; when no response reached it (an interceptor answered
    /// itself), it reads `response` first.
    func result(answering response: CourierResponse) async throws -> Result {
        if let result = state.withLockedValue({ $0.result }) { return result }
        _ = try await consume(StreamedResponse(whole: response))
        return state.withLockedValue { $0.result }!
    }
}
