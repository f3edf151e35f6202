/// The seam between Courier and the network: sends one request (no redirects followed) and
/// returns its response with the body collected.
///
/// ``AsyncHTTPClientTransport`` is the default. Implement this protocol to send requests some
/// other way (an in-memory stub for previews, URLSession on Apple platforms).
public protocol Transport: Sendable {
    /// Sends `request` once and collects the response body, up to
    /// ``HTTPRequest/maximumBodySize`` bytes.
    ///
    /// - Parameters:
    ///   - request: the request, ready for the wire.
    ///   - deadline: the instant by which the exchange must finish, or `nil`.
    /// - Throws: ``CourierError``; cancelling the calling task cancels the exchange and frees
    ///   its connection.
    func send(_ request: HTTPRequest, deadline: ContinuousClock.Instant?) async throws -> Response

    /// Sends `request` once and hands the response to `body` as soon as its head has arrived,
    /// with the body still to be read; the exchange ends when `body` returns.
    ///
    /// The body is paced by its reader (see ``ResponseBodyStream``), so downloads of any size
    /// stay in bounded memory. Pieces left unread when `body` returns are discarded. Transports
    /// that cannot stream inherit an implementation that throws
    /// ``CourierError/Kind/streamingUnsupported``.
    ///
    /// - Parameters:
    ///   - request: the request, ready for the wire.
    ///   - deadline: the instant by which the whole exchange, body included, must finish.
    ///   - body: reads the response; its result is the exchange's.
    /// - Throws: ``CourierError``, or what `body` throws; cancelling the calling task cancels
    ///   the exchange.
    func stream<Result: Sendable>(
        _ request: HTTPRequest,
        deadline: ContinuousClock.Instant?,
        body: (StreamedResponse) async throws -> Result
    ) async throws -> Result

    /// Releases the transport's connections and threads.
    func shutdown() async throws
}

extension Transport {
    /// Throws ``CourierError/Kind/streamingUnsupported``: a transport streams responses only
    /// when it implements this requirement itself.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        deadline: ContinuousClock.Instant?,
        body: (StreamedResponse) async throws -> Result
    ) async throws -> Result {
        throw CourierError(
            .streamingUnsupported,
            "The transport \(Self.self) cannot stream response bodies, which downloads to a file need; use AsyncHTTPClientTransport, or implement Transport.stream(_:deadline:body:).",
            url: request.url
        )
    }
}
