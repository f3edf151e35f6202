/// The seam between Courier and the network: sends one request (no redirects followed) and
/// returns its response with the body collected.
///
/// ``AsyncHTTPClientTransport`` is the default. Implement this protocol to send requests some
/// other way (an in-memory stub for previews, URLSession on Apple platforms).
public protocol Transport: Sendable {
    /// Sends `request` once and collects the response body, up to
    /// ``HTTPRequest/maximumBodySize`` bytes.
    ///
    /// - Parameter deadline: the instant by which the exchange must finish, or `nil`.
    /// - Throws: ``CourierError``; cancelling the calling task cancels the exchange and frees
    ///   its connection.
    func send(_ request: HTTPRequest, deadline: ContinuousClock.Instant?) async throws -> Response

    /// Releases the transport's connections and threads.
    func shutdown() async throws
}
