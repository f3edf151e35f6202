/// Adds headers to every request, from fixed values or from a closure that may suspend (to
/// read a token, say). Headers the request already has win unless `overwrite` is set.
public struct HeaderInjector: Interceptor {
    private let provide: @Sendable (CourierHTTPRequest) async throws -> Headers
    private let overwrite: Bool

    /// Adds fixed headers.
    public init(_ headers: Headers, overwrite: Bool = false) {
        self.provide = { _ in headers }
        self.overwrite = overwrite
    }

    /// Adds the headers `provide` returns for each request.
    public init(overwrite: Bool = false, _ provide: @escaping @Sendable (CourierHTTPRequest) async throws -> Headers) {
        self.provide = provide
        self.overwrite = overwrite
    }

    public func intercept(_ request: CourierHTTPRequest, next: Next) async throws -> CourierResponse {
        var request = request
        for field in try await provide(request) {
            if overwrite {
                request.headers.set(name: field.name, value: field.value)
            } else if !request.headers.contains(field.name) {
                request.headers.add(name: field.name, value: field.value)
            }
        }
        return try await next(request)
    }
}
