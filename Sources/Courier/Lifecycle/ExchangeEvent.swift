/// One message on the wire: the first request, a redirect hop, or an answer to an
/// authentication challenge, and, once it arrived, its response head.
///
/// ``request`` is the request exactly as sent, with the credentials and cookies Courier
/// added; show it through ``redactedRequestHeaders`` and ``redactedResponseHeaders``, which
/// hide ``Headers/alwaysRedacted`` and the request's ``CourierHTTPRequest/sensitiveHeaders``.
public struct ExchangeEvent: Sendable {
    /// The request as sent.
    public var request: CourierHTTPRequest
    /// The response status, once the head arrived.
    public var status: Int?
    /// The response reason phrase, once the head arrived.
    public var reasonPhrase: String?
    /// The response headers, once the head arrived.
    public var responseHeaders: Headers?
    /// The version of HTTP the response arrived over, once the head arrived.
    public var protocolVersion: CourierResponse.ProtocolVersion?

    /// Creates an event.
    public init(
        request: CourierHTTPRequest, status: Int? = nil, reasonPhrase: String? = nil, responseHeaders: Headers? = nil,
        protocolVersion: CourierResponse.ProtocolVersion? = nil
    ) {
        self.request = request
        self.status = status
        self.reasonPhrase = reasonPhrase
        self.responseHeaders = responseHeaders
        self.protocolVersion = protocolVersion
    }

    /// The request headers with secrets replaced by `<redacted>`.
    public var redactedRequestHeaders: Headers { request.redactedHeaders }

    /// The response headers with secrets replaced by `<redacted>`; empty before the head arrived.
    public var redactedResponseHeaders: Headers {
        (responseHeaders ?? Headers()).redacted(alsoHiding: request.sensitiveHeaders)
    }
}
