import Foundation

/// A typed endpoint: a type that describes one API call, in the style of YTKRequest subclasses
/// or Moya targets.
///
/// ```swift
/// struct GetUser: CourierEndpoint {
///     typealias Value = User
///     let id: Int
///     var path: String { "/users/\(id)" }
/// }
/// let user = try await client.send(GetUser(id: 1))
/// ```
///
/// Only ``path`` is required; every other requirement has a default. Override ``makeRequest()``
/// to take full control.
public protocol CourierEndpoint: Sendable {
    /// The value the response decodes to.
    associatedtype Value: Sendable
    /// The path, joined to the client's base URL, or an absolute URL.
    var path: String { get }
    /// The method; GET by default.
    var method: CourierHTTPMethod { get }
    /// The arguments; none by default.
    var parameters: CourierParameters? { get }
    /// Where the arguments go; `.automatic` by default.
    var parameterEncoding: ParameterEncoding { get }
    /// Extra headers; none by default.
    var headers: Headers { get }
    /// The body; none by default.
    var body: CourierRequestBody? { get }
    /// Whether to use the CDN URL; `false` by default.
    var usesCDN: Bool { get }
    /// The total time allowed; the client's by default.
    var timeout: Duration? { get }
    /// The validators; a 2xx status by default.
    var validators: [ResponseValidator] { get }
    /// Decodes the value from a validated response.
    func decode(_ response: CourierResponse, decoder: JSONDecoder) throws -> Value
    /// Builds the request; the default uses the requirements above.
    func makeRequest() -> CourierRequest<Value>
}

extension CourierEndpoint {
    public var method: CourierHTTPMethod { .get }
    public var parameters: CourierParameters? { nil }
    public var parameterEncoding: ParameterEncoding { .automatic }
    public var headers: Headers { Headers() }
    public var body: CourierRequestBody? { nil }
    public var usesCDN: Bool { false }
    public var timeout: Duration? { nil }
    public var validators: [ResponseValidator] { [.statusCode(200..<300)] }

    public func makeRequest() -> CourierRequest<Value> {
        var request = CourierRequest<Value>(method: method, path: path) { response, decoder in
            try self.decode(response, decoder: decoder)
        }
        request.parameters = parameters
        request.parameterEncoding = parameterEncoding
        request.headers = headers
        request.body = body
        request.usesCDN = usesCDN
        request.timeout = timeout
        request.validators = validators
        return request
    }
}

extension CourierEndpoint where Value: Decodable {
    public func decode(_ response: CourierResponse, decoder: JSONDecoder) throws -> Value {
        try CourierRequest<Value>(path: path).decode(response, decoder)
    }
}

extension CourierEndpoint where Value == CourierResponse {
    public func decode(_ response: CourierResponse, decoder: JSONDecoder) throws -> Value { response }
}
