import Foundation
import HTTPTypes

// Conversions between Courier's values and swift-http-types', the ecosystem's currency types
// for HTTP. Each direction keeps everything the other side can hold: a conversion that would
// have to change a value (a name that is not a token, a status outside 0...999) throws
// instead.

extension CourierHTTPMethod {
    /// The method swift-http-types calls `method`.
    public init(_ method: HTTPTypes.HTTPRequest.Method) {
        self.init(method.rawValue)
    }
}

extension HTTPTypes.HTTPRequest.Method {
    /// Courier's `method`; `nil` when it is not an HTTP token, which swift-http-types cannot
    /// hold (Courier refuses it before sending, with ``CourierError/Kind/invalidMethod``).
    public init?(_ method: CourierHTTPMethod) {
        self.init(method.rawValue)
    }
}

extension Headers {
    /// The fields of `fields`, in order, with their names as written.
    public init(_ fields: HTTPFields) {
        self.init(fields.map { ($0.name.rawName, $0.value) })
    }
}

extension HTTPFields {
    /// Courier's `headers`, in order, with their names as written and the optional whitespace
    /// around each value (which is not part of it, RFC 9110 §5.5) removed.
    ///
    /// - Throws: ``CourierError/Kind/invalidHeader`` for a name that is not a token, or a value
    ///   with a control character; swift-http-types would change either.
    public init(_ headers: Headers) throws(CourierError) {
        self.init()
        for field in headers {
            guard let name = HTTPField.Name(field.name) else {
                throw CourierError(
                    .invalidHeader, "The header name \(WireValidation.quoted(field.name)) is not an HTTP token, so it has no swift-http-types form; fix or remove it.")
            }
            let value = field.value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            guard HTTPField.isValidValue(value) else {
                throw CourierError(
                    .invalidHeader,
                    "The value of \(WireValidation.quoted(field.name)) holds a control character, so it has no swift-http-types form; fix or remove it.")
            }
            append(HTTPField(name: name, value: value))
        }
    }
}

extension HTTPTypes.HTTPRequest {
    /// Courier's `request` as swift-http-types holds it: method, scheme, authority (host and
    /// port, without user information), path with query (the fragment is never sent), and
    /// header fields. The body and Courier's own settings (timeout, cache policy…) have no
    /// place there.
    ///
    /// - Throws: ``CourierError/Kind/invalidMethod``, ``CourierError/Kind/invalidURL`` for a
    ///   URL without an http or https scheme and a host, and what
    ///   ``HTTPTypes/HTTPFields/init(_:)`` throws.
    public init(_ request: Courier.CourierHTTPRequest) throws(CourierError) {
        guard let method = Method(request.method) else {
            throw CourierError(
                .invalidMethod, "The method \(WireValidation.quoted(request.method.rawValue)) is not an HTTP token; use letters such as GET or POST.")
        }
        guard let parts = URLComponents(url: request.url, resolvingAgainstBaseURL: true), let scheme = parts.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parts.percentEncodedHost, !host.isEmpty
        else {
            throw CourierError(.invalidURL, "The URL has no http or https scheme and host to put in a request's pseudo-fields; give an absolute URL.", url: request.url)
        }
        let authority = parts.port.map { "\(host):\($0)" } ?? host
        let path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        let target = parts.percentEncodedQuery.map { path + "?" + $0 } ?? path
        self.init(method: method, scheme: scheme, authority: authority, path: target, headerFields: try HTTPFields(request.headers))
    }
}

extension Courier.CourierHTTPRequest {
    /// A request for Courier built from swift-http-types' `request` and `body`.
    ///
    /// - Throws: ``CourierError/Kind/invalidURL`` when the scheme, authority and path do not
    ///   make an absolute http or https URL.
    public init(_ request: HTTPTypes.HTTPRequest, body: CourierRequestBody? = nil) throws(CourierError) {
        let scheme = request.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https", let authority = request.authority, !authority.isEmpty,
            let url = URL(string: "\(scheme)://\(authority)\(request.path ?? "/")"), url.host != nil
        else {
            throw CourierError(
                .invalidURL,
                "The request's scheme, authority and path (\(WireValidation.quoted("\(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "")"))) do not make an absolute http or https URL."
            )
        }
        self.init(method: CourierHTTPMethod(request.method), url: url, headers: Headers(request.headerFields), body: body)
    }
}

extension HTTPTypes.HTTPResponse {
    /// Courier's `response` as swift-http-types holds it: status with reason phrase, and header
    /// fields. The body, URL, redirects and timing stay on ``CourierResponse``.
    ///
    /// - Throws: ``CourierError/Kind/malformedResponse`` for a status outside 0...999, which
    ///   swift-http-types cannot hold; what ``HTTPTypes/HTTPFields/init(_:)`` throws.
    public init(_ response: CourierResponse) throws(CourierError) {
        guard (0...999).contains(response.status) else {
            throw CourierError(
                .malformedResponse, "The status \(response.status) is outside 0...999 and has no swift-http-types form.", url: response.url,
                response: response)
        }
        self.init(status: Status(code: response.status, reasonPhrase: response.reasonPhrase), headerFields: try HTTPFields(response.headers))
    }
}

extension CourierResponse {
    /// A response for Courier built from swift-http-types' `response`, with its body and the
    /// URL it answers.
    public init(_ response: HTTPTypes.HTTPResponse, body: Data = Data(), url: URL) {
        self.init(
            status: response.status.code, reasonPhrase: response.status.reasonPhrase, headers: Headers(response.headerFields), body: body,
            url: url)
    }
}

extension ResponseBodyStream {
    /// Reads the rest of the body, hands it to `transform`, and returns what `transform` made
    /// of it with the trailer fields that ended the body (`nil` when none came): the way the
    /// concluding reader of Swift's proposed standard HTTP client API collects a body.
    ///
    /// - Parameters:
    ///   - maximumBytes: the largest body accepted.
    ///   - transform: makes a value of the whole body.
    /// - Throws: ``CourierError/Kind/responseTooLarge`` as soon as the body grows past
    ///   `maximumBytes`; what the sequence and `transform` throw.
    public func collect<Result>(upTo maximumBytes: Int, _ transform: (Data) throws -> Result) async throws -> (Result, HTTPFields?) {
        let bytes = try await collect(upTo: maximumBytes)
        let result = try transform(bytes)
        guard let trailers, !trailers.isEmpty else { return (result, nil) }
        return (result, try HTTPFields(trailers))
    }
}
