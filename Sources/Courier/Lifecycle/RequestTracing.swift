import Foundation
import Tracing

/// Courier's spans, named and described after OpenTelemetry's conventions for HTTP clients:
/// one span per request (its retries, redirects, challenges and cache lookups included), and
/// one child per message sent, whose context goes out in the message's fields (W3C
/// `traceparent` with an OpenTelemetry tracer) so that the server's spans join the trace.
///
/// A client without a tracer (none configured, and the no-op one bootstrapped) never reaches
/// this type: no span, no attribute, no field.
struct RequestTracing: Sendable {
    let tracer: any Tracer

    /// The tracing of a client with `configuration`: its tracer, else the bootstrapped one
    /// unless that is the no-op tracer.
    init?(_ configuration: ClientConfiguration) {
        if let tracer = configuration.tracer {
            self.tracer = tracer
            return
        }
        let bootstrapped = InstrumentationSystem.tracer
        guard !(bootstrapped is NoOpTracer) else { return nil }
        self.tracer = bootstrapped
    }

    /// Starts the span of a request, a child of the task's current context.
    func startRequest(_ request: CourierHTTPRequest) -> any Span {
        let span = tracer.startSpan(Self.spanName(request), context: InstrumentationContext.current ?? .topLevel, ofKind: .client)
        Self.describe(request, on: span)
        return span
    }

    /// Starts the span of one message of a request (`resend` counts the messages before it)
    /// and puts its context into the message's fields.
    func startMessage(_ request: inout CourierHTTPRequest, resend: Int) -> any Span {
        let span = tracer.startSpan(Self.spanName(request), context: InstrumentationContext.current ?? .topLevel, ofKind: .client)
        Self.describe(request, on: span)
        if resend > 0 { span.attributes["http.request.resend_count"] = resend }
        tracer.inject(span.context, into: &request.headers, using: FieldInjector())
        return span
    }

    /// Ends `span` with the response, or the error, it came to.
    static func end(_ span: any Span, status: Int?, source: String? = nil, error: (any Error)? = nil) {
        if let status {
            span.attributes["http.response.status_code"] = status
            if status >= 400 {
                span.attributes["error.type"] = String(status)
                span.setStatus(SpanStatus(code: .error))
            }
        }
        if let source { span.attributes["courier.response.source"] = source }
        if let error {
            span.attributes["error.type"] = HTTPConventions.errorType(error)
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    /// The method, or `HTTP` for one outside the conventions' list.
    private static func spanName(_ request: CourierHTTPRequest) -> String {
        let name = HTTPConventions.method(request.method)
        return name == "_OTHER" ? "HTTP" : name
    }

    /// The request's attributes: method, server, and the URL without user information and
    /// with the values of its query replaced, since they often hold keys and tokens.
    private static func describe(_ request: CourierHTTPRequest, on span: any Span) {
        let method = HTTPConventions.method(request.method)
        let url = request.url
        span.attributes["http.request.method"] = method
        if method == "_OTHER" { span.attributes["http.request.method_original"] = WireValidation.quoted(request.method.rawValue) }
        span.attributes["server.address"] = url.host ?? ""
        span.attributes["server.port"] = HTTPConventions.port(of: url)
        span.attributes["url.full"] = redacted(url)
    }

    /// `url` without user information, with each query value replaced by `REDACTED`.
    static func redacted(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return "" }
        parts.user = nil
        parts.password = nil
        parts.fragment = nil
        if let items = parts.percentEncodedQueryItems {
            parts.percentEncodedQueryItems = items.map { URLQueryItem(name: $0.name, value: $0.value == nil ? nil : "REDACTED") }
        }
        return parts.string ?? ""
    }
}

/// Writes a span context's fields into a request's header fields, replacing any of the same
/// name.
private struct FieldInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout Headers) {
        carrier.set(name: key, value: value)
    }
}
