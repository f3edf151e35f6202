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
        var lifecycle = RequestLifecycle()
        let start = ContinuousClock.now
        let startDate = Date()
        let observers = self.observers
        var current: CourierHTTPRequest?
        var response: CourierResponse?

        func move(to next: RequestState, error: (any Error)? = nil) {
            guard let previous = try? lifecycle.transition(to: next) else { return }
            state?.withLockedValue { $0 = next }
            guard !observers.isEmpty, let current else { return }
            let event = RequestEvent(request: current, state: next, previousState: previous, response: response, error: error, start: start)
            for observer in observers { observer.requestDidChangeState(event) }
        }
        func notify(_ call: (any RequestObserver, RequestEvent) -> Void, error: (any Error)? = nil) {
            guard !observers.isEmpty, let current else { return }
            let event = RequestEvent(request: current, state: lifecycle.state, previousState: lifecycle.state, response: response, error: error, start: start)
            for observer in observers { call(observer, event) }
        }

        // The call's retry decisions, when it may be retried; whether any attempt began.
        var retries: CallRetries?
        var attempted = false
        do {
            try checkNotShutDown()
            try Task.checkCancellation()
            current = try build()
            try current!.checkRanges()
            current!.callDeadline = current!.timeout.map { start + $0 }
            move(to: .started)
            notify { $0.requestWillStart($1) }
            let policy = retryPolicy ?? configuration.retryPolicy
            // A call that may not be retried (the default) needs no decisions, and pays nothing
            // for them.
            if policy.maximumAttempts > 1 {
                // A body that can be written only once is never sent twice.
                let repeatable = (current!.method.isIdempotent || current!.headers.contains("Idempotency-Key")) && current!.body?.isOneShot != true
                let decisions = CallRetries(policy: policy, repeatable: repeatable, deadline: current!.callDeadline)
                begin(decisions)
                retries = decisions
            }
            var received: CourierResponse
            attempted = true
            if let tracing {
                let request = current!
                received = try await traced(request, by: tracing) {
                    try await attempt(request, retries: retries, start: start, terminal: terminal, mayRetry: mayRetry, prepare: prepare)
                }
            } else {
                received = try await attempt(current!, retries: retries, start: start, terminal: terminal, mayRetry: mayRetry, prepare: prepare)
            }
            received.timing.start = start
            received.timing.startDate = startDate
            response = received
            for validator in validators { try validator.validate(received) }
            let result = try await finish(received)
            notify { $0.requestWillStop($1) }
            move(to: .completed)
            notify { $0.requestDidStop($1) }
            return result
        } catch {
            var final = CourierClient.classify(error, url: current?.url)
            if var failure = final as? CourierError, failure.attempts == 0, attempted {
                failure.attempts = retries?.attempts ?? 1
                final = failure
            }
            notify({ $0.requestWillStop($1) }, error: final)
            let isCancellation = (final as? CourierError)?.kind == .cancelled
            move(to: isCancellation ? .cancelled : .failed, error: final)
            notify({ $0.requestDidStop($1) }, error: final)
            throw final
        }
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
        _ request: CourierHTTPRequest, retries: CallRetries?, start: ContinuousClock.Instant, terminal: Terminal?, mayRetry: () -> Bool,
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
                var event = RequestEvent(request: request, state: .started, previousState: .started, response: response, error: failure, start: start)
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
