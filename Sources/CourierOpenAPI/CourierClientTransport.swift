import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` that sends each request of a generated client
/// through a ``Courier/CourierClient``.
///
/// Every operation takes the client's one request path: its interceptors, authentication,
/// cookies, redirects, retries, HTTP cache, coalescing of identical GETs, priorities and
/// limits, metrics and spans. The generated client sees every status the server answers, as an
/// OpenAPI transport must: no validator runs, and a `404` is a response, not an error.
///
/// ```swift
/// let courier = CourierClient(configuration: configuration)
/// let api = Client(serverURL: try Servers.Server1.url(), transport: CourierClientTransport(courier))
/// let item = try await api.getItem(path: .init(item: "42")).ok.body.json
/// ```
///
/// The URL of each request is the generated client's server URL with the operation's path; the
/// client's ``Courier/ClientConfiguration/baseURL`` is not used for it, but still decides where
/// credentials given for it (``Courier/Authentication``) are sent, so set it to the same server.
/// The client's default headers are added where the request does not set them. The response
/// body is collected before the generated client reads it, up to the client's
/// ``Courier/Limits/maximumBodySize``; for a body larger than that, send the request through
/// ``Courier/CourierClient/stream(_:body:)-(CourierRequest<Value>,_)`` or
/// ``Courier/CourierClient/download(_:to:options:)-(CourierRequest<Value>,_,_)`` instead.
///
/// A request body is streamed as the generated client produces it. One that can be iterated
/// more than once is sent again when a retry or a `307`/`308` redirect needs it; one that can be
/// iterated only once fails such a second attempt with the runtime's error.
public struct CourierClientTransport: ClientTransport {
    /// The client that sends the requests.
    public let client: CourierClient

    /// A transport that sends through `client`, which the caller keeps and shuts down.
    public init(_ client: CourierClient) {
        self.client = client
    }

    /// Sends `request` to `baseURL` joined with the request's path, and returns the response
    /// with its whole body.
    ///
    /// - Throws: ``Courier/CourierError`` for every failure of Courier's own (the runtime wraps
    ///   it in its `ClientError`, whose `underlyingError` it then is).
    public func send(
        _ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
        var courierRequest = try CourierHTTPRequest(
            method: CourierHTTPMethod(request.method),
            url: Self.url(baseURL, request.path),
            headers: Headers(request.headerFields),
            body: body.map(Self.body),
            maximumBodySize: client.configuration.limits.maximumBodySize
        )
        for field in client.configuration.defaultHeaders where !courierRequest.headers.contains(field.name) {
            courierRequest.headers.add(name: field.name, value: field.value)
        }
        let response = try await client.send(courierRequest)
        return (try HTTPTypes.HTTPResponse(response), HTTPBody(response.body))
    }

    /// The URL of a request: the server's URL with the operation's path (and query) after it.
    package static func url(_ baseURL: URL, _ path: String?) throws(CourierError) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let path = path ?? "/"
        guard let url = URL(string: base + (path.hasPrefix("/") ? path : "/" + path)), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else {
            throw CourierError(
                .invalidURL,
                "The server URL \(baseURL.absoluteString) with the operation's path \(path) does not make an absolute http or https URL; check the serverURL given to the generated client."
            )
        }
        return url
    }

    /// The generated client's body as a body Courier streams, with its length when known.
    static func body(_ body: HTTPBody) -> CourierRequestBody {
        let length: Int64? =
            switch body.length {
            case .known(let count): count
            case .unknown: nil
            }
        return .stream(length: length, contentType: nil) {
            AsyncThrowingStream { continuation in
                let pump = Task {
                    do {
                        for try await chunk in body { continuation.yield(Data(chunk)) }
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { _ in pump.cancel() }
            }
        }
    }
}
