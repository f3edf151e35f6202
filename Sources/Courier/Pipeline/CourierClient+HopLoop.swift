import Foundation

extension CourierClient {
    /// What one hop of the exchange came to.
    private enum Hop<Result: Sendable>: Sendable {
        /// The final response was handed to the delivery step, which returned this.
        case delivered(Result, status: Int)
        /// A challenge was answered or a redirect followed: send this next.
        case next(CourierHTTPRequest, status: Int)

        var status: Int {
            switch self {
            case .delivered(_, let status), .next(_, let status): return status
            }
        }
    }

    /// The one place where a request meets the network: sends `request` hop by hop over the
    /// transport's streaming call and hands the final response to `deliver`, its body still
    /// to be read.
    ///
    /// Each hop takes its origin's credentials from the authenticator while the chain stays
    /// on its first origin, and the cookie jar's cookies for its own URL
    /// (``prepareHop(_:)``); waits for its scheduler slot; stores the cookies its response
    /// sets and tells the observers (``finishHop(_:head:)``). A 401
    /// the authenticator can answer, and a redirect the policy follows, are read to their end
    /// (when short) and lead to the next hop. Once a redirect leaves the first origin, no
    /// credential is added and no challenge answered, like the redirect rule that removes
    /// credential headers for the rest of the chain.
    ///
    /// The scheduler slot of the final hop is held until `deliver` returns, so a streamed
    /// response counts against the client's limits for as long as it is read. Buffered
    /// requests collect the body in `deliver`; see ``collect(_:)``.
    nonisolated(nonsending) func hops<Result: Sendable>(
        _ request: CourierHTTPRequest,
        deliver: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        let deadline = request.hopDeadline
        var redirects = RedirectStateMachine(policy: request.redirectPolicy ?? configuration.redirectPolicy, request: request)
        var attempts = AuthenticationAttempts()
        var current = request
        // A kept-alive connection the server closed just as it was reused fails before any of
        // the response: a request that is safe to send again is, once per hop, on a new one.
        var replayed = false
        // Messages sent so far, for their spans' resend count.
        var sent = 0
        while true {
            // Credentials go on a copy: the hop a redirect builds from `current` never inherits them.
            var outgoing = current
            let authenticator = redirects.credentialsRemoved ? nil : (request.authenticator ?? self.authenticator)
            let credentials = try await authenticator?.authorize(&outgoing, attempts: attempts)
            prepareHop(&outgoing)
            let message = tracing?.startMessage(&outgoing, resend: sent)
            sent += 1
            let admitted: Admitted
            do {
                admitted = try await admit(&outgoing, deadline: deadline)
            } catch {
                if let message { RequestTracing.end(message, status: nil, error: error) }
                throw error
            }
            let hop: Hop<Result>
            var headArrived = false
            do {
                hop = try await stream(outgoing, admission: admitted.admission, deadline: deadline) { streamed -> Hop<Result> in
                    headArrived = true
                    let status = streamed.head.status
                    let location = streamed.head.headers["Location"]
                    finishHop(outgoing, head: streamed.head)
                    if status == 401, let authenticator, current.body?.isOneShot != true,
                        try await authenticator.answers(streamed.headWithCollectedBody, to: current, sent: credentials, attempts: &attempts)
                    {
                        await streamed.body.discard()
                        return .next(current, status: status)
                    }
                    switch try redirects.next(status: status, location: location, request: current) {
                    case .deliver:
                        // Moved, not copied: the head is changed in place.
                        var final = consume streamed
                        if !redirects.hops.isEmpty { final.head.redirects = redirects.hops }
                        final.head.request = current
                        return .delivered(try await deliver(consume final), status: status)
                    case .follow(let next):
                        await streamed.body.discard()
                        return .next(next, status: status)
                    }
                }
            } catch {
                admitted.end(.init(failure: error))
                if let message { RequestTracing.end(message, status: nil, error: error) }
                if !headArrived, !replayed, current.mayBeReplayed, let failure = error as? CourierError,
                    failure.kind == .connectionFailed, failure.requestMayHaveBeenSent, !failure.responseStarted, !Task.isCancelled
                {
                    replayed = true
                    continue
                }
                throw error
            }
            admitted.end(.response(status: hop.status))
            if let message { RequestTracing.end(message, status: hop.status) }
            switch hop {
            case .delivered(let result, _):
                return result
            case .next(let next, _):
                current = next
                replayed = false
            }
        }
    }

    /// Calls the transport's ``Transport/stream(_:deadline:body:)`` once `admission` holds its
    /// slot. The client's own transport is called directly, which lets the compiler specialize
    /// it for the loop's result, and is handed the start of the exchange (see ``Admission``):
    /// it waits for the slot itself.
    nonisolated(nonsending) private func stream<Result: Sendable>(
        _ request: CourierHTTPRequest, admission: Admission, deadline: ClockReading?,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        if let routing = transport as? RoutingTransport {
            return try await routing.stream(request, deadline: deadline, admission: admission, body: body)
        }
        try await admission.wait()
        return try await transport.stream(request, deadline: deadline?.instant, body: body)
    }

    /// Sends `request` through ``hops(_:deliver:)`` and collects the final response's
    /// body, up to the request's ``CourierHTTPRequest/maximumBodySize``: a buffered response is the
    /// stream, read whole.
    nonisolated(nonsending) func collect(_ request: CourierHTTPRequest) async throws -> CourierResponse {
        var request = request
        request.collectsResponseBody = true
        let limit = request.maximumBodySize
        // Handed on, not copied, so that the body goes into the head's own storage.
        return try await hops(request) { response in try await (consume response).collectedOnCallersExecutor(upTo: limit) }
    }

    /// A hop's admission, with what else it holds until the hop ends.
    struct Admitted {
        let admission: Admission
        /// The shared origin budget's permit, with ``ClientConfiguration/originBudget``.
        let permit: OriginPermit?
        /// The timer that withdraws the admission at the deadline while it waits.
        let expiry: Task<Void, Never>?

        /// The hop has ended, as `outcome` says: the slot and the permit go back.
        func end(_ outcome: AdaptiveLimit.Outcome) {
            expiry?.cancel()
            permit?.release()
            admission.end(outcome)
        }
    }

    /// Checks a request's method and headers for the wire and puts it in line for its
    /// scheduler slot, no later than `deadline`. The request keeps the origin the slot is for,
    /// for the transport.
    ///
    /// Under a shared ``ClientConfiguration/originBudget``, the request waits here for the slot
    /// and then for the budget's permit; otherwise the admission may still be waiting, and
    /// ``stream(_:admission:deadline:body:)`` sees to the wait.
    nonisolated(nonsending) func admit(
        _ request: inout CourierHTTPRequest, deadline: ClockReading? = nil
    ) async throws -> Admitted {
        let admitted = try enterLine(&request, deadline: deadline)
        guard let budget = configuration.originBudget else { return admitted }
        return try await permit(admitted, from: budget, for: request, deadline: deadline)
    }

    /// The part of ``admit(_:deadline:)`` that never waits: the checks and the place in line.
    /// Kept apart so that the usual admission, without a shared budget, lays out no
    /// asynchronous frame of its own.
    private func enterLine(_ request: inout CourierHTTPRequest, deadline: ClockReading?) throws(CourierError) -> Admitted {
        try WireValidation.validateMethod(request.method)
        try WireValidation.validate(request.headers)
        let origin = request.rememberOrigin()
        let admission = scheduler.admit(host: origin, priority: request.priority, request: request.id)
        var expiry: Task<Void, Never>?
        if admission.arrivedWaiting, let deadline {
            let url = request.url
            let timeout = request.timeout
            expiry = scheduler.expire(admission, at: deadline.instant) {
                Self.waitedTooLong(for: "a free slot (ClientConfiguration.limits)", url: url, timeout: timeout)
            }
        }
        return Admitted(admission: admission, permit: nil, expiry: expiry)
    }

    /// Waits for `admitted`'s slot, then for `budget`'s permit for the request's origin.
    nonisolated(nonsending) private func permit(
        _ admitted: Admitted, from budget: any OriginBudget, for request: CourierHTTPRequest, deadline: ClockReading?
    ) async throws -> Admitted {
        let admission = admitted.admission
        do {
            try await admission.wait()
        } catch {
            admitted.expiry?.cancel()
            admission.end(.inconclusive)
            throw error
        }
        admitted.expiry?.cancel()
        do {
            return Admitted(admission: admission, permit: try await budget.permit(for: request.origin, until: deadline?.instant), expiry: nil)
        } catch {
            admission.end(.inconclusive)
            if let deadline, ClockReading.now >= deadline, !(error is CancellationError) {
                throw Self.waitedTooLong(for: "the shared origin budget (ClientConfiguration.originBudget)", url: request.url, timeout: request.timeout)
            }
            throw error
        }
    }

    /// The timeout of a request that waited for `what` past its deadline; nothing was sent.
    private static func waitedTooLong(for what: String, url: URL, timeout: Duration?) -> CourierError {
        var error = CourierError(
            .timeout,
            "The request waited for \(what) past its total timeout\(timeout.map { " of \($0)" } ?? ""); raise the limits or the timeout.",
            url: url
        )
        error.requestMayHaveBeenSent = false
        return error
    }
}
