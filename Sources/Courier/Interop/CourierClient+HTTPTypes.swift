import Foundation
import HTTPTypes

extension CourierClient {
    /// Sends a swift-http-types request and hands its response head and body to
    /// `responseHandler` as soon as the head has arrived; returns what the handler returns.
    ///
    /// This is the shape of `HTTPClient.perform(request:body:options:responseHandler:)` in
    /// Swift's proposed standard HTTP client API (apple/swift-http-api-proposal, overseen by
    /// the Swift Networking Workgroup), over the currency types of swift-http-types, so that
    /// code written against the proposal reads the same against Courier. The request takes
    /// Courier's one path, as ``stream(_:body:)-(CourierRequest<Value>,_)`` does: default
    /// headers, `Accept-Encoding` and decoding, credentials and challenges, cookies,
    /// redirects and their cross-origin rules, the retry policy, the scheduler's limits,
    /// interceptors, observers, tracing and metrics.
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/echo")
    /// let (echo, trailers) = try await client.perform(
    ///     request: request,
    ///     body: .restartable { writer in
    ///         try await writer.write(Data("Hello World".utf8))
    ///         return nil
    ///     }
    /// ) { response, body in
    ///     try await body.collect(upTo: 1024) { String(decoding: $0, as: UTF8.self) }
    /// }
    /// ```
    ///
    /// A request without a scheme and authority is sent to its path under the client's
    /// ``ClientConfiguration/baseURL``.
    ///
    /// Every status reaches the handler (a 404 or a 999 alike), after the redirects and
    /// challenges the client follows; nothing is validated. The body is read as the handler
    /// asks, in bounded memory, and what it leaves unread is dropped with the connection when
    /// it returns. A ``CourierRequestBody/restartable(knownLength:_:)`` body is written again
    /// for a 307 or 308 redirect, a challenge or a retry; a
    /// ``CourierRequestBody/nonrestartable(knownLength:_:)`` one is written once, and the
    /// response that would need it again is handed over as it is.
    ///
    /// - Parameters:
    ///   - request: the method, scheme, authority, path and header fields to send.
    ///   - body: the request body, or `nil` for none.
    ///   - options: Courier's settings for this request; each defaults to the client's.
    ///   - responseHandler: reads the response; called once, with the head of the final
    ///     response and its body.
    /// - Throws: ``CourierError`` (``CourierError/Kind/invalidURL`` for a request whose
    ///   scheme, authority and path make no http or https URL,
    ///   ``CourierError/Kind/invalidConfiguration`` for an extended CONNECT, which Courier does
    ///   not send); what `responseHandler` throws.
    public func perform<Return: Sendable>(
        request: HTTPTypes.HTTPRequest,
        body: CourierRequestBody? = nil,
        options: CourierRequestOptions = CourierRequestOptions(),
        responseHandler: @escaping @Sendable (HTTPTypes.HTTPResponse, ResponseBodyStream) async throws -> Return
    ) async throws -> Return {
        let courierRequest = try CourierRequest<Void>(request, body: body, options: options)
        return try await stream(courierRequest) { streamed in
            try await responseHandler(try HTTPTypes.HTTPResponse(streamed.head), streamed.body)
        }
    }
}

extension CourierRequest where Value == Void {
    /// The request ``CourierClient/perform(request:body:options:responseHandler:)`` sends for
    /// `request`, `body` and `options`: every response is accepted.
    init(_ request: HTTPTypes.HTTPRequest, body: CourierRequestBody?, options: CourierRequestOptions) throws(CourierError) {
        if let name = request.extendedConnectProtocol {
            throw CourierError(
                .invalidConfiguration,
                "The request is an extended CONNECT for \(WireValidation.quoted(name)), which Courier does not send; remove its :protocol pseudo-field.")
        }
        let path = request.path ?? "/"
        let target: String
        switch (request.scheme, request.authority) {
        case (let scheme?, let authority?):
            target = "\(scheme)://\(authority)\(path)"
        case (nil, nil):
            target = path
        default:
            throw CourierError(
                .invalidURL,
                "The request has a scheme or an authority without the other (\(WireValidation.quoted("\(request.scheme ?? "")://\(request.authority ?? "")\(path)"))); give both, or neither to use the client's base URL."
            )
        }
        self.init(method: CourierHTTPMethod(request.method), path: target, body: body)
        headers = Headers(request.headerFields)
        validators = []
        timeout = options.timeout
        priority = options.priority
        cachePolicy = options.cachePolicy
        appCachePolicy = options.appCachePolicy
        retryPolicy = options.retryPolicy
        redirectPolicy = options.redirectPolicy
        credential = options.credential
        connection = options.connection
        sensitiveHeaders = options.sensitiveHeaders
        maximumBodySize = options.maximumBodySize
        tag = options.tag
        userInfo = options.userInfo
    }
}
