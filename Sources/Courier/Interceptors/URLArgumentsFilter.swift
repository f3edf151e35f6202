import Foundation

/// Adds query arguments to every request (YTKNetwork's `YTKUrlArgumentsFilter`), such as an
/// app version or a channel. An argument already present in the URL's query is left as it is.
public struct URLArgumentsFilter: Interceptor {
    /// The arguments added.
    public let arguments: [URLQueryItem]

    /// Creates a filter that adds `arguments`.
    public init(arguments: [URLQueryItem]) { self.arguments = arguments }

    /// Creates a filter from a dictionary; names are added in ascending order.
    public init(_ arguments: [String: String]) {
        self.arguments = arguments.keys.sorted().map { URLQueryItem(name: $0, value: arguments[$0]) }
    }

    public func intercept(_ request: CourierHTTPRequest, next: Next) async throws -> CourierResponse {
        var request = request
        let present = Set(
            (URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map(\.name)
        )
        try request.appendQueryItems(arguments.filter { !present.contains($0.name) })
        return try await next(request)
    }
}
