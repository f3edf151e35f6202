import Foundation

/// The seam between Courier and the network: sends one request, with no redirect followed, no
/// credential added and no retry, and hands over its response.
///
/// The client calls only ``stream(_:deadline:body:)``: every request, buffered or streamed,
/// goes through it (see ARCHITECTURE.md). ``CourierAsyncHTTPClientTransport`` is the default.
/// `CourierURLSessionTransport`, in the `CourierURLSession` product, sends through URLSession.
/// Implement this protocol to send requests some other way (an in-memory stub for previews). A transport that can only collect whole bodies implements
/// ``send(_:deadline:)`` and inherits a `stream` that hands the collected body over as one
/// piece.
public protocol Transport: Sendable {
    /// Sends `request` once and collects the response body, up to
    /// ``CourierHTTPRequest/maximumBodySize`` bytes.
    ///
    /// - Parameters:
    ///   - request: the request, ready for the wire.
    ///   - deadline: the instant by which the exchange must finish, or `nil`.
    /// - Throws: ``CourierError``; cancelling the calling task cancels the exchange and frees
    ///   its connection.
    func send(_ request: CourierHTTPRequest, deadline: ContinuousClock.Instant?) async throws -> CourierResponse

    /// Sends `request` once and hands the response to `body` as soon as its head has arrived,
    /// with the body still to be read; the exchange ends when `body` returns.
    ///
    /// The body is paced by its reader (see ``ResponseBodyStream``), so downloads of any size
    /// stay in bounded memory. Pieces left unread when `body` returns are discarded.
    ///
    /// - Parameters:
    ///   - request: the request, ready for the wire.
    ///   - deadline: the instant by which the whole exchange, body included, must finish.
    ///   - body: reads the response; its result is the exchange's.
    /// - Throws: ``CourierError``, or what `body` throws; cancelling the calling task cancels
    ///   the exchange.
    nonisolated(nonsending) func stream<Result: Sendable>(
        _ request: CourierHTTPRequest,
        deadline: ContinuousClock.Instant?,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result

    /// Releases the transport's connections and threads.
    func shutdown() async throws
}

extension Transport {
    /// Sends `request` with ``send(_:deadline:)`` and hands the collected body to `body` as
    /// one piece: a transport that cannot stream still serves every request, within
    /// ``CourierHTTPRequest/maximumBodySize``.
    nonisolated(nonsending) public func stream<Result: Sendable>(
        _ request: CourierHTTPRequest,
        deadline: ContinuousClock.Instant?,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        return try await body(StreamedResponse(whole: try await send(request, deadline: deadline)))
    }
}
