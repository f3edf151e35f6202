import Foundation

/// Writes the pieces of a request body while it is sent; see
/// ``CourierRequestBody/writing(length:contentType:_:)``.
///
/// A piece is handed to the connection one at a time: ``write(_:)`` returns once the transport
/// has taken the piece, so the code that produces a body never runs more than one piece ahead
/// of the network, however slow the server reads.
public struct RequestBodyWriter: Sendable {
    let body: WrittenBody

    /// Hands `bytes` to the connection, and returns once the transport has taken them. An
    /// empty piece is skipped.
    ///
    /// - Throws: ``CourierError/Kind/cancelled`` when the exchange ended before the piece was
    ///   taken (the server answered early and closed, the request was cancelled or timed out);
    ///   ``CourierError/Kind/invalidBody`` when another write of the same body is still
    ///   waiting, or the body's closure has already returned.
    public func write(_ bytes: Data) async throws {
        try await body.write(bytes)
    }
}

extension CourierRequestBody {
    /// A body that `write` produces piece by piece while it is sent, ended by the trailer
    /// fields `write` returns (an empty ``Headers`` for none).
    ///
    /// `write` runs once per attempt, from the moment the transport starts sending the body,
    /// so a redirect (307/308) or a retry can send it again. Trailers carry what is known only
    /// at the end, such as a checksum of the bytes sent:
    ///
    /// ```swift
    /// let lines = ["first line\n", "second line\n"]
    /// request.body = .writing { writer in
    ///     var checksum = 0
    ///     for line in lines {
    ///         let bytes = Data(line.utf8)
    ///         checksum = bytes.reduce(checksum) { ($0 &+ Int($1)) & 0xFFFF }
    ///         try await writer.write(bytes)
    ///     }
    ///     return ["X-Checksum": String(checksum)]
    /// }
    /// ```
    ///
    /// Trailers are sent over HTTP/1.1 (in the last chunk) and HTTP/2 (a closing header block)
    /// by the built-in transport; URLSession cannot send them, and a body that ends with
    /// trailers fails there with ``CourierError/Kind/invalidConfiguration`` before its end
    /// goes out. A body with trailers must have no `length`: on HTTP/1.1 they ride only on
    /// the chunked framing. A trailer may not be a field that frames, routes or authenticates
    /// the message (`Content-Length`, `Host`, `Authorization`…); see
    /// ``CourierError/Kind/invalidHeader``.
    ///
    /// - Parameters:
    ///   - length: the body's length in bytes, when known (it becomes `Content-Length`).
    ///   - contentType: the media type sent as `Content-Type` unless the request names one.
    ///   - write: writes the body with the writer it is given and returns the trailers.
    public static func writing(
        length: Int64? = nil,
        contentType: String? = "application/octet-stream",
        _ write: @escaping @Sendable (RequestBodyWriter) async throws -> Headers
    ) -> CourierRequestBody {
        CourierRequestBody(content: .writer(write), contentType: contentType, length: length)
    }
}
