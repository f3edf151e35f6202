import Foundation

extension CourierClient {
    /// Sends `request` and hands its response to `body` as soon as the head has arrived, the
    /// body still to be read piece by piece; returns what `body` returns.
    ///
    /// The request takes the same path as ``send(_:)-(CourierRequest<Value>)``: interceptors,
    /// credentials, cookies, redirects with their cross-origin rules, the scheduler's limits,
    /// observers. The body is paced by its reader, so a body of any size is read in bounded
    /// memory; the exchange ends when `body` returns, and what it left unread is dropped with
    /// the connection. Cancelling the task cancels the exchange.
    ///
    /// ```swift
    /// let bytes = try await client.stream(CourierRequest<Void>(path: "/export.csv")) { response in
    ///     var count = 0
    ///     for try await piece in response.body { count += piece.count }
    ///     return count
    /// }
    /// ```
    ///
    /// The HTTP cache takes part as for a buffered request: a response it may deliver reaches
    /// `body` whole, as one piece, and a response from the network is stored once `body` has
    /// read it to its end within ``CourierRequest/maximumBodySize``. Differences from a
    /// buffered request: coalescing does not take part; the request's validators see the head
    /// with an empty body; and a failure is retried by the retry policy only until a response
    /// has been handed to `body`.
    ///
    /// - Throws: ``CourierError`` for Courier's own failures; what `body` throws.
    public func stream<Value, Result: Sendable>(
        _ request: CourierRequest<Value>,
        body: @escaping @Sendable (StreamedResponse) async throws -> Result
    ) async throws -> Result {
        let id = CourierRequestID()
        return try await performStreaming(id: id, validators: request.validators, retryPolicy: request.retryPolicy, reader: body) { () throws(CourierError) in
            try makeHTTPRequest(request, id: id)
        }
    }

    /// Sends `request` asking for `upgrade`, as ``stream(_:body:)-(CourierRequest<Value>,_)``
    /// does: on a `101`, `upgrade` holds the connection when `body` gets the response (see
    /// ``ConnectionUpgrade``). The client's own transport alone can hand a connection over.
    package func stream<Value, Result: Sendable>(
        _ request: CourierRequest<Value>,
        upgrade: ConnectionUpgrade,
        body: @escaping @Sendable (StreamedResponse) async throws -> Result
    ) async throws -> Result {
        let id = CourierRequestID()
        return try await performStreaming(id: id, validators: request.validators, retryPolicy: request.retryPolicy, reader: body) { () throws(CourierError) in
            var built = try makeHTTPRequest(request, id: id)
            built.upgrade = upgrade
            built.allowsCoalescing = false
            return built
        }
    }

    /// Sends a fully built request as it is, as ``send(_:)-(CourierHTTPRequest)`` does, and hands
    /// its response to `body` as ``stream(_:body:)-(CourierRequest<Value>,_)`` does.
    public func stream<Result: Sendable>(
        _ request: CourierHTTPRequest,
        body: @escaping @Sendable (StreamedResponse) async throws -> Result
    ) async throws -> Result {
        var request = request
        request.sensitiveHeaders.formUnion(configuration.sensitiveHeaders.map { $0.lowercased() })
        return try await performStreaming(id: request.id, validators: [], retryPolicy: nil, reader: body) { () throws(CourierError) in request }
    }

    /// Runs a streamed request through the path, with `reader` at its end (see ``StreamSink``).
    ///
    /// `send` is the last step, after the interceptors: it answers the request by handing a
    /// response to the sink; without it, the request goes to ``hops(_:deliver:)``. A
    /// retryable status is retried before its body reaches `reader`; a failure is retried only
    /// until `reader` was handed a response, unless `resumes` (a download, whose reader picks
    /// up where the last attempt left off).
    nonisolated(nonsending) func performStreaming<Result: Sendable>(
        id: CourierRequestID,
        validators: [ResponseValidator],
        retryPolicy: CourierRetryPolicy?,
        resumes: Bool = false,
        reader: @escaping @Sendable (StreamedResponse) async throws -> Result,
        prepare: (@Sendable (inout CourierHTTPRequest) -> Void)? = nil,
        send: (@Sendable (CourierHTTPRequest, StreamSink<Result>) async throws -> CourierResponse)? = nil,
        build: () throws(CourierError) -> CourierHTTPRequest
    ) async throws -> Result {
        let sink = StreamSink(validators: validators, reader: reader)
        return try await perform(
            id: id, state: nil, validators: [], retryPolicy: retryPolicy,
            terminal: { request in
                if let send { return try await send(request, sink) }
                return try await self.respondStreaming(to: request, sink: sink)
            },
            mayRetry: { resumes || !sink.hasStarted },
            begin: { sink.consults($0) },
            prepare: prepare,
            build: build,
            finish: { response in try await sink.result(answering: response) }
        )
    }
}
