/// A step of the request pipeline: it sees every request on its way down and every response
/// (or error) on its way up.
///
/// Interceptors run in the order of ``ClientConfiguration/interceptors``; the first one listed
/// is the outermost. Call `next` to pass the request on; return without calling it to answer
/// yourself; call it more than once to retry.
///
/// ```swift
/// struct Timing: Interceptor {
///     func intercept(_ request: CourierHTTPRequest, next: Next) async throws -> CourierResponse {
///         let start = ContinuousClock.now
///         defer { print(request.url, ContinuousClock.now - start) }
///         return try await next(request)
///     }
/// }
/// ```
public protocol Interceptor: Sendable {
    /// The rest of the pipeline.
    typealias Next = @Sendable (CourierHTTPRequest) async throws -> CourierResponse

    /// Handles one request.
    func intercept(_ request: CourierHTTPRequest, next: Next) async throws -> CourierResponse
}
