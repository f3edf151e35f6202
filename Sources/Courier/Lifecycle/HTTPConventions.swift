import Foundation

/// The values OpenTelemetry's conventions for HTTP clients record, shared by the metrics
/// (``MetricsObserver``) and the spans (``RequestTracing``).
enum HTTPConventions {
    /// The methods RFC 9110 and RFC 5789 define.
    private static let standardMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]

    /// `http.request.method`: the method's name when RFC 9110 or RFC 5789 defines it, else
    /// `_OTHER`, so that a hostile method cannot multiply metric series or span names.
    static func method(_ method: CourierHTTPMethod) -> String {
        standardMethods.contains(method.rawValue) ? method.rawValue : "_OTHER"
    }

    /// `server.port`: the URL's port, else its scheme's default.
    static func port(of url: URL) -> Int {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }

    /// `error.type` of a failure: the kind of a ``CourierError``, else the error's type.
    static func errorType(_ error: any Error) -> String {
        if let error = error as? CourierError { return error.kind.description }
        return String(describing: type(of: error))
    }

    /// `courier.response.source`: where the response came from, `coalesced` when it was
    /// another identical request's.
    static func source(of response: CourierResponse) -> String {
        response.isCoalesced ? "coalesced" : response.source.rawValue
    }
}
