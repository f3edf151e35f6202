/// Turns responses into errors, and errors into other errors (MKNetworkKit's
/// `errorForCompletedRequest`): the place to read an API's error envelope once for every
/// request.
///
/// ```swift
/// ErrorMapper(response: { response in
///     response.status == 200 && response.headers["X-API-Error"] != nil
///         ? APIError(code: response.headers["X-API-Error"]!) : nil
/// })
/// ```
public struct ErrorMapper: Interceptor {
    private let mapResponse: @Sendable (CourierResponse) -> (any Error)?
    private let mapError: @Sendable (any Error) -> any Error

    /// Creates a mapper. `response` returns an error to throw instead of a response, or `nil`;
    /// `error` replaces an error thrown further down.
    public init(
        response: @escaping @Sendable (CourierResponse) -> (any Error)? = { _ in nil },
        error: @escaping @Sendable (any Error) -> any Error = { $0 }
    ) {
        self.mapResponse = response
        self.mapError = error
    }

    public func intercept(_ request: CourierHTTPRequest, next: Next) async throws -> CourierResponse {
        let response: CourierResponse
        do {
            response = try await next(request)
        } catch {
            throw mapError(error)
        }
        if let error = mapResponse(response) { throw error }
        return response
    }
}
