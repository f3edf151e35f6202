import Foundation
import HTTPTypes
import NIOConcurrencyHelpers

extension CourierRequestBody {
    /// A body that `write` produces piece by piece, from the first byte, each time the request
    /// is sent, ended by the trailer fields it returns (`nil` for none): the restartable body
    /// of Swift's proposed standard HTTP client API (apple/swift-http-api-proposal).
    ///
    /// Because `write` can run again, the request follows 307 and 308 redirects, answers
    /// challenges and is retried with its body. It is ``writing(length:contentType:_:)`` with
    /// swift-http-types' fields for its trailers, and no media type of its own: the request's
    /// `Content-Type` field says what it is.
    ///
    /// ```swift
    /// let body = CourierRequestBody.restartable(knownLength: 11) { writer in
    ///     try await writer.write(Data("Hello World".utf8))
    ///     return nil
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - knownLength: the body's length in bytes, when known (it becomes `Content-Length`);
    ///     a body that ends with trailers must leave it `nil`.
    ///   - write: writes the body from its first byte and returns its trailers.
    public static func restartable(
        knownLength: Int64? = nil,
        _ write: @escaping @Sendable (RequestBodyWriter) async throws -> HTTPFields?
    ) -> CourierRequestBody {
        writing(length: knownLength, contentType: nil) { writer in Headers(try await write(writer) ?? HTTPFields()) }
    }

    /// A body that `write` can produce from any byte offset, ended by the trailer fields it
    /// returns: the seekable body of Swift's proposed standard HTTP client API.
    ///
    /// Courier sends every attempt from the first byte, so `write` is called with an offset of
    /// 0 and behaves as a ``restartable(knownLength:_:)`` body; the offset is there for an
    /// upload that resumes where the server's copy ends.
    ///
    /// - Parameters:
    ///   - knownLength: the body's length in bytes, when known (it becomes `Content-Length`).
    ///   - write: writes the body from the byte offset it is given and returns its trailers.
    public static func seekable(
        knownLength: Int64? = nil,
        _ write: @escaping @Sendable (_ offset: Int64, RequestBodyWriter) async throws -> HTTPFields?
    ) -> CourierRequestBody {
        restartable(knownLength: knownLength) { writer in try await write(0, writer) }
    }

    /// A body that `write` can produce only once, ended by the trailer fields it returns: the
    /// non-restartable body of Swift's proposed standard HTTP client API, for bytes that come
    /// from somewhere that cannot be read twice (a socket, standard input).
    ///
    /// The request is never sent twice: the retry policy does not retry it once its body may
    /// have been sent, and a 307 or 308 redirect, or a challenge its credentials could answer,
    /// is delivered as it is rather than followed. Should anything still ask for the body a
    /// second time, that attempt fails with ``CourierError/Kind/invalidBody``. Prefer
    /// ``restartable(knownLength:_:)`` whenever the bytes can be produced again.
    ///
    /// - Parameters:
    ///   - knownLength: the body's length in bytes, when known (it becomes `Content-Length`).
    ///   - write: writes the body and returns its trailers; called at most once.
    public static func nonrestartable(
        knownLength: Int64? = nil,
        _ write: @escaping @Sendable (RequestBodyWriter) async throws -> HTTPFields?
    ) -> CourierRequestBody {
        let started = NIOLockedValueBox(false)
        var body = restartable(knownLength: knownLength) { writer in
            let first = started.withLockedValue { started in
                defer { started = true }
                return !started
            }
            guard first else {
                throw CourierError(
                    .invalidBody,
                    "The request needed its body a second time, and a .nonrestartable body can be written only once; create it with .restartable to let a redirect, a challenge or a retry send it again."
                )
            }
            return try await write(writer)
        }
        body.isOneShot = true
        return body
    }
}
