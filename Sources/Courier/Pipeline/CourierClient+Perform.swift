import Foundation
import NIOConcurrencyHelpers
import Tracing

extension CourierClient {
    /// The innermost step of the interceptor chain: what answers a request once every
    /// interceptor has passed it on.
    typealias Terminal = nonisolated(nonsending) @Sendable (CourierHTTPRequest) async throws -> CourierResponse

    /// Runs one request through its whole life: build, start, retry around the interceptors
    /// and `terminal`, validate, finish.
    ///
    /// The request's ``CourierHTTPRequest/timeout`` is the whole call's: its deadline is set
    /// here, once, and spans every attempt, the waits between them, redirects, challenges and
    /// a download's resumes. A wait for a retry that would end past it is not taken.
    ///
    /// - Parameters:
    ///   - terminal: the end of the path; `nil` is the buffered one, ``respond(to:)``.
    ///   - mayRetry: whether a failure may still be retried; a streamed request may not once
    ///     its body was handed to the reader.
    ///   - begin: given the call's retry decisions once the request is built, when the policy
    ///     allows a retry at all, for a streamed request's sink to consult when a head arrives.
    ///   - prepare: changes each attempt's request before the interceptors see it (a
    ///     download's `Range` from what is on disk).
    nonisolated(nonsending) func perform<Result>(
        id: CourierRequestID,
        state: NIOLockedValueBox<RequestState>?,
        validators: [ResponseValidator],
        retryPolicy: CourierRetryPolicy? = nil,
        terminal: Terminal? = nil,
        mayRetry: @Sendable () -> Bool = { true },
        begin: (CallRetries) -> Void = { _ in },
        prepare: (@Sendable (inout CourierHTTPRequest) -> Void)? = nil,
        build: () throws(CourierError) -> CourierHTTPRequest,
        finish: nonisolated(nonsending) (CourierResponse) async throws -> Result
    ) async throws -> Result {
        // Only `finish` knows the result's type: the rest of the call runs in `respond`, which
        // is not generic, so its frames and values are laid out once for every result type.
        var call = CallProgress(state: state, observers: observers)
        do {
            let received = try await respond(
                &call, validators: validators, retryPolicy: retryPolicy, terminal: terminal, mayRetry: mayRetry, begin: begin, prepare: prepare,
                build: build)
            let result = try await finish(received)
            call.complete()
            return result
        } catch {
            throw call.fail(error)
        }
    }

    /// The call up to its validated response: build, start, retry around the interceptors and
    /// `terminal`, validate; `call` records each step.
    nonisolated(nonsending) private func respond(
        _ call: inout CallProgress,
        validators: [ResponseValidator],
        retryPolicy: CourierRetryPolicy?,
        terminal: Terminal?,
        mayRetry: @Sendable () -> Bool,
        begin: (CallRetries) -> Void,
        prepare: (@Sendable (inout CourierHTTPRequest) -> Void)?,
        build: () throws(CourierError) -> CourierHTTPRequest
    ) async throws -> CourierResponse {
        try checkNotShutDown()
        try Task.checkCancellation()
        call.current = try build()
        try call.current!.checkRanges()
        call.current!.startCall(at: call.started)
        let request = call.current!
        call.move(to: .started)
        call.notify { $0.requestWillStart($1) }
        let policy = retryPolicy ?? configuration.retryPolicy
        // A call that may not be retried (the default) needs no decisions, and pays nothing
        // for them.
        if policy.maximumAttempts > 1 {
            // A body that can be written only once is never sent twice.
            let repeatable = (request.method.isIdempotent || request.headers.contains("Idempotency-Key")) && request.body?.isOneShot != true
            let decisions = CallRetries(policy: policy, repeatable: repeatable, deadline: request.callDeadline)
            begin(decisions)
            call.retries = decisions
        }
        var received: CourierResponse
        call.attempted = true
        let retries = call.retries
        // Readings, not instants, cross the awaits below: an instant's size is not known
        // outside the standard library, so each one held by an asynchronous frame is allocated.
        let start = call.started
        if let tracing {
            received = try await traced(request, by: tracing) {
                try await attempt(request, retries: retries, start: start, terminal: terminal, mayRetry: mayRetry, prepare: prepare)
            }
        } else {
            received = try await attempt(request, retries: retries, start: start, terminal: terminal, mayRetry: mayRetry, prepare: prepare)
        }
        received.timing.setStart(start, date: call.startDate)
        call.response = received
        for validator in validators { try validator.validate(received) }
        return received
    }

    nonisolated(nonsending) func perform<Value>(
        _ request: CourierRequest<Value>, id: CourierRequestID, state: NIOLockedValueBox<RequestState>?, decodes: Bool = true,
        progress: ProgressReporter? = nil
    ) async throws -> (value: Value?, response: CourierResponse) {
        let decoder = configuration.jsonDecoder
        return try await perform(id: id, state: state, validators: request.validators, retryPolicy: request.retryPolicy) { () throws(CourierError) in
            try makeHTTPRequest(request, id: id, progress: progress)
        } finish: { response in
            guard decodes else { return (nil, response) }
            do {
                return (try request.decode(response, decoder), response)
            } catch let error as CourierError {
                throw error
            } catch {
                throw CourierError(
                    .decodingFailed, "The response could not be decoded as \(Value.self): \(CourierResponse.describe(error)).",
                    url: response.url, response: response, underlyingError: error
                )
            }
        }
    }

    /// Runs `operation` (a request's attempts) inside the request's span, as the current
    /// context, so that each message's span is its child.
    nonisolated(nonsending) private func traced(
        _ request: CourierHTTPRequest, by tracing: RequestTracing, _ operation: nonisolated(nonsending) () async throws -> CourierResponse
    ) async throws -> CourierResponse {
        let span = tracing.startRequest(request)
        do {
            let response = try await InstrumentationContext.withValue(span.context) { try await operation() }
            RequestTracing.end(span, status: response.status, source: HTTPConventions.source(of: response))
            return response
        } catch {
            RequestTracing.end(span, status: nil, error: error)
            throw error
        }
    }

    /// Sends a fully built request once, as it is: interceptors, authentication and redirects
    /// apply, retries do not (the durable queue schedules its own).
    package func sendOnce(_ request: CourierHTTPRequest) async throws -> CourierResponse {
        try await perform(id: request.id, state: nil, validators: [], retryPolicy: CourierRetryPolicy.none) { () throws(CourierError) in
            request
        } finish: {
            $0
        }
    }

    /// Runs the interceptors and `terminal`, and again after a retryable failure, as the
    /// call's `retries` and `mayRetry` allow.
    nonisolated(nonsending) private func attempt(
        _ request: CourierHTTPRequest, retries: CallRetries?, start: ClockReading, terminal: Terminal?, mayRetry: () -> Bool,
        prepare: (@Sendable (inout CourierHTTPRequest) -> Void)?
    ) async throws -> CourierResponse {
        func attempted() -> CourierHTTPRequest {
            guard let prepare else { return request }
            var copy = request
            prepare(&copy)
            return copy
        }
        guard let retries else { return try await run(attempted(), from: 0, terminal: terminal) }
        while true {
            let outcome: RetryStateMachine.Outcome
            var response: CourierResponse?
            var failure: CourierError?
            do {
                let received = try await run(attempted(), from: 0, terminal: terminal)
                response = received
                outcome = .response(status: received.status, retryAfter: received.headers["Retry-After"])
            } catch let error as CourierError {
                guard mayRetry() else { throw error }
                failure = error
                outcome = .failure(error)
            }
            guard mayRetry() else { return response! }
            let decision = retries.decide(outcome)
            guard case .retry(let delay) = decision else {
                if let failure { throw failure }
                return response!
            }
            if !observers.isEmpty {
                var event = RequestEvent(
                    request: request, state: .started, previousState: .started, response: response, error: failure, start: start.instant)
                event.attempt = retries.attempts - 1
                event.retryDelay = delay
                for observer in observers { observer.requestWillRetry(event) }
            }
            try await configuration.clock.sleep(for: delay)
        }
    }

    /// Runs interceptor `index` and the rest after it; past the last one, `terminal`.
    nonisolated(nonsending) private func run(_ request: CourierHTTPRequest, from index: Int, terminal: Terminal?) async throws -> CourierResponse {
        let interceptors = configuration.interceptors
        guard index < interceptors.count else {
            if let terminal { return try await terminal(request) }
            return try await respond(to: request)
        }
        return try await interceptors[index].intercept(request) { next in
            try await self.run(next, from: index + 1, terminal: terminal)
        }
    }

    /// Turns cancellation into ``CourierError/Kind/cancelled`` and adds the URL to Courier errors.
    static func classify(_ error: any Error, url: URL?) -> any Error {
        switch error {
        case let error as CourierError:
            return error.with(url: url)
        case is CancellationError:
            return CourierError(.cancelled, "The request was cancelled.", url: url, underlyingError: error)
        default:
            return error
        }
    }
}
