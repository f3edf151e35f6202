import Foundation
import NIOConcurrencyHelpers

extension Client {
    /// Runs one request through its whole life: build, start, pipeline, validate, finish.
    nonisolated(nonsending) func perform<Result>(
        id: RequestID,
        state: NIOLockedValueBox<RequestState>?,
        validators: [ResponseValidator],
        retryPolicy: RetryPolicy? = nil,
        build: () throws(CourierError) -> HTTPRequest,
        finish: (Response) throws -> Result
    ) async throws -> Result {
        var lifecycle = RequestLifecycle()
        let start = ContinuousClock.now
        let startDate = Date()
        let observers = configuration.observers
        var current: HTTPRequest?
        var response: Response?

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

        do {
            try checkNotShutDown()
            try Task.checkCancellation()
            current = try build()
            move(to: .started)
            notify { $0.requestWillStart($1) }
            var received = try await attempt(current!, policy: retryPolicy ?? configuration.retryPolicy, start: start)
            received.timing.start = start
            received.timing.startDate = startDate
            response = received
            for validator in validators { try validator.validate(received) }
            let result = try finish(received)
            notify { $0.requestWillStop($1) }
            move(to: .completed)
            notify { $0.requestDidStop($1) }
            return result
        } catch {
            let final = Client.classify(error, url: current?.url)
            notify({ $0.requestWillStop($1) }, error: final)
            let isCancellation = (final as? CourierError)?.kind == .cancelled
            move(to: isCancellation ? .cancelled : .failed, error: final)
            notify({ $0.requestDidStop($1) }, error: final)
            throw final
        }
    }

    nonisolated(nonsending) func perform<Value>(
        _ request: Request<Value>, id: RequestID, state: NIOLockedValueBox<RequestState>?, decodes: Bool = true,
        progress: ProgressReporter? = nil
    ) async throws -> (value: Value?, response: Response) {
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
                    .decodingFailed, "The response could not be decoded as \(Value.self): \(Response.describe(error)).",
                    url: response.url, response: response, underlyingError: error
                )
            }
        }
    }

    /// Runs the pipeline, and again after a retryable failure, as `policy` allows.
    nonisolated(nonsending) private func attempt(_ request: HTTPRequest, policy: RetryPolicy, start: ContinuousClock.Instant) async throws -> Response {
        guard policy.maximumAttempts > 1 else { return try await run(request, from: 0) }
        var retries = RetryStateMachine(policy: policy)
        let repeatable = request.method.isIdempotent || request.headers.contains("Idempotency-Key")
        while true {
            let outcome: RetryStateMachine.Outcome
            var response: Response?
            var failure: CourierError?
            do {
                let received = try await run(request, from: 0)
                response = received
                outcome = .response(status: received.status, retryAfter: received.headers["Retry-After"])
            } catch let error as CourierError {
                failure = error
                outcome = .failure(error)
            }
            let decision = retries.decide(outcome, repeatable: repeatable, jitter: Double.random(in: 0..<1), now: Date())
            guard case .retry(let delay) = decision else {
                if let failure { throw failure }
                return response!
            }
            if !configuration.observers.isEmpty {
                var event = RequestEvent(request: request, state: .started, previousState: .started, response: response, error: failure, start: start)
                event.attempt = retries.attempts - 1
                event.retryDelay = delay
                for observer in configuration.observers { observer.requestWillRetry(event) }
            }
            try await configuration.clock.sleep(for: delay)
        }
    }

    /// Runs interceptor `index` and the rest after it; past the last one, the exchange.
    nonisolated(nonsending) private func run(_ request: HTTPRequest, from index: Int) async throws -> Response {
        let interceptors = configuration.interceptors
        guard index < interceptors.count else { return try await exchange(request) }
        return try await interceptors[index].intercept(request) { next in
            try await self.run(next, from: index + 1)
        }
    }

    /// Answers a request from the cache where it may, and otherwise from the network (see
    /// ``HTTPCache``). The cache sits before the scheduler: a hit never waits for a slot.
    nonisolated(nonsending) func exchange(_ request: HTTPRequest) async throws -> Response {
        guard let cache else {
            if request.cachePolicy == .onlyIfCached {
                // No cache is configured, so nothing can satisfy the request (RFC 9111 §5.2.1.7).
                return HTTPCache.gatewayTimeout(for: request)
            }
            return try await load(request)
        }
        let identity = try await credentialIdentity(for: request)
        return try await cache.respond(to: request, identity: identity) { try await self.load($0) }
    }

    /// Who a request speaks for, to keep the cache entries of different credentials apart: its
    /// own `Authorization`, else the credentials configured for its origin, and the SHA-256 of
    /// the client certificate configured for its host (https only); `nil` for none of these.
    func credentialIdentity(for request: HTTPRequest) async throws -> String? {
        let credentials: String?
        if let authorization = request.headers["Authorization"] {
            credentials = "authorization:" + authorization
        } else {
            credentials = try await authenticator?.identity(for: request.url)
        }
        var certificate: String?
        if request.url.scheme?.lowercased() == "https", let host = request.url.host,
            let identity = configuration.tls.identity(for: host)
        {
            certificate = "certificate:" + (try identity.fingerprint())
        }
        let parts = [credentials, certificate].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: "\n")
    }

    /// Loads a request from the network; identical GET and HEAD requests in flight at the same
    /// time share one exchange (see ``ClientConfiguration/coalescesRequests``).
    nonisolated(nonsending) func load(_ request: HTTPRequest) async throws -> Response {
        guard configuration.coalescesRequests, let key = CoalescingKey(request) else { return try await transfer(request) }
        var response = try await coalescer.response(for: key) { try await self.transfer(request) }
        if response.redirects.isEmpty { response.request = request }
        return response
    }

    /// Sends a request and follows its redirects. Each hop gets the cookie jar's cookies for
    /// its own URL, and each response's cookies are stored. The authenticator works on each hop while
    /// the chain stays on its first origin; once it left, it adds no credentials and answers no
    /// challenge, like the redirect rule that removes credential headers for the rest of the chain.
    nonisolated(nonsending) private func transfer(_ request: HTTPRequest) async throws -> Response {
        let deadline = request.timeout.map { ContinuousClock.now + $0 }
        var redirects = RedirectStateMachine(policy: configuration.redirectPolicy, request: request)
        var attempts = AuthenticationAttempts()
        var current = request
        while true {
            // Credentials go on a copy: the hop a redirect builds from `current` never inherits them.
            var outgoing = current
            let authenticator = redirects.credentialsRemoved ? nil : self.authenticator
            let credentials = try await authenticator?.authorize(&outgoing, attempts: attempts)
            prepareHop(&outgoing)
            let origin = try await admit(outgoing)
            var response: Response
            let sent = ContinuousClock.now
            do {
                response = try await transport.send(outgoing, deadline: deadline)
            } catch {
                scheduler.release(host: origin, sample: .init(latency: .now - sent, outcome: .init(failure: error)))
                throw error
            }
            scheduler.release(host: origin, sample: .init(latency: .now - sent, outcome: .response(status: response.status)))
            finishHop(outgoing, status: response.status, reasonPhrase: response.reasonPhrase, headers: response.headers)
            if response.status == 401, let authenticator,
                try await authenticator.answers(response, to: current, sent: credentials, attempts: &attempts)
            {
                continue
            }
            switch try redirects.next(status: response.status, location: response.headers["Location"], request: current) {
            case .deliver:
                response.redirects = redirects.hops
                response.request = current
                return response
            case .follow(let next):
                current = next
            }
        }
    }

    /// Checks a request's method and headers for the wire, then waits for its scheduler slot;
    /// returns the origin the slot was taken for.
    nonisolated(nonsending) func admit(_ request: HTTPRequest) async throws -> String {
        try WireValidation.validateMethod(request.method)
        try WireValidation.validate(request.headers)
        let origin = RedirectStateMachine.origin(of: request.url)
        try await scheduler.acquire(host: origin, priority: request.priority, request: request.id)
        return origin
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
