import Foundation

/// A response whose head has arrived and whose body is read piece by piece.
///
/// ``Transport/stream(_:deadline:body:)`` hands one to its closure. The body is paced by its
/// reader: the transport stops reading from the network while a bounded amount (the built-in
/// transport holds at most about 512 KiB) waits to be taken, so a body of any size costs a
/// bounded amount of memory.
public struct StreamedResponse: Sendable {
    /// The status, headers, URL and timing; its ``Response/body`` is empty.
    public var head: Response
    /// The body, in pieces as they arrive.
    public var body: ResponseBodyStream

    /// Creates a streamed response; custom transports use this.
    public init(head: Response, body: ResponseBodyStream) {
        self.head = head
        self.body = body
    }
}

/// The pieces of a response body, in order. A piece holds whatever arrived since the reader
/// took the previous one, so a reader that falls behind gets fewer, larger pieces.
///
/// Iterate it once. The sequence ends after the last piece, or throws ``CourierError`` when the
/// exchange fails part way (a dropped connection, a timeout, a cancellation).
public struct ResponseBodyStream: AsyncSequence, Sendable {
    /// A piece of the body.
    public typealias Element = Data

    private let nextPiece: @Sendable () async throws -> Data?

    /// Creates a body whose pieces come from `next`, which returns `nil` after the last one.
    public init(next: @escaping @Sendable () async throws -> Data?) {
        self.nextPiece = next
    }

    /// Reads the body's pieces.
    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate let nextPiece: @Sendable () async throws -> Data?

        /// The next piece, or `nil` after the last one.
        public mutating func next() async throws -> Data? {
            try await nextPiece()
        }
    }

    /// Returns an iterator over the pieces.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(nextPiece: nextPiece)
    }
}
