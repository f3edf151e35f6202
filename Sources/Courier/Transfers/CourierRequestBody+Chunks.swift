import Foundation

extension CourierRequestBody {
    /// The largest piece a body held in memory is cut into when it is streamed.
    static let chunkSize = 64 * 1024

    /// Whether the transport must send the body piece by piece: it is produced while it is
    /// sent, or someone counts its bytes.
    package var isStreamed: Bool {
        switch content {
        case .stream, .writer: return true
        case .bytes: return progressReporter != nil
        }
    }

    /// Whether the body may end with trailer fields.
    package var mayHaveTrailers: Bool {
        if case .writer = content { return true }
        return false
    }

    /// The body's bytes, piece by piece, in the order the transport takes them; each piece
    /// is counted for the progress reporter as it is taken.
    package func chunks() -> Chunks {
        Chunks(body: self)
    }

    /// Reports to whoever watches the upload that `count` more bytes went out, `sent` in all,
    /// for a transport that hands the body's ``sourceFile`` to the system instead of taking
    /// its pieces.
    package func reportSent(_ count: Int64, sent: Int64) {
        guard let progressReporter else { return }
        if sent == count { progressReporter.begin(total: length) }
        progressReporter.advance(by: Int(clamping: count))
        if let length, sent >= length { progressReporter.end() }
    }

    /// The pieces of a body; see ``CourierRequestBody/chunks()``.
    package struct Chunks: AsyncSequence {
        package typealias Element = Data
        let body: CourierRequestBody

        package func makeAsyncIterator() -> Iterator {
            body.progressReporter?.begin(total: body.length)
            switch body.content {
            case .bytes(let data): return Iterator(source: .bytes(data, offset: 0), reporter: body.progressReporter, length: body.length)
            case .stream(let makeStream):
                return Iterator(source: .stream(makeStream().makeAsyncIterator()), reporter: body.progressReporter, length: body.length)
            case .writer(let write): return Iterator(source: .writer(WriterRun(write)), reporter: body.progressReporter, length: body.length)
            }
        }

        package struct Iterator: AsyncIteratorProtocol {
            enum Source {
                case bytes(Data, offset: Int)
                case stream(AsyncThrowingStream<Data, any Error>.Iterator)
                case writer(WriterRun)
                case done
            }

            var source: Source
            let reporter: ProgressReporter?
            /// The declared length, which a body with trailers may not have.
            var length: Int64? = nil
            /// The trailer fields the body ended with, once ``next()`` has returned `nil`.
            package private(set) var trailers = Headers()
            /// The bytes ``nextPiece()`` has handed over, and the piece it read ahead.
            fileprivate var handedOver: Int64 = 0
            fileprivate var readAhead: Data?

            /// The next piece to send, and whether it is the last; `nil` at the end.
            ///
            /// A piece is handed over as soon as the body gives it (a body may wait for the
            /// response), except the one that reaches a declared length: a body of known length
            /// looks complete to the server with its last byte, so its end is read first, and
            /// its own checks there (a file that changed while it was read) fail the request
            /// while the server has not yet received it whole. Send the last piece with the
            /// end of the body.
            package mutating func nextPiece() async throws -> (data: Data, isLast: Bool)? {
                let piece: Data
                if let readAhead {
                    piece = readAhead
                    self.readAhead = nil
                } else {
                    guard let next = try await next() else { return nil }
                    piece = next
                }
                handedOver += Int64(piece.count)
                guard let length, handedOver >= length else { return (piece, false) }
                readAhead = try await next()
                return (piece, readAhead == nil)
            }

            /// The next piece, `nil` at the end.
            ///
            /// - Throws: what the body's source threw, as ``CourierError/Kind/invalidBody``
            ///   unless it is a ``CourierError`` or a cancellation already, the same on every
            ///   transport.
            package mutating func next() async throws -> Data? {
                do {
                    return try await take()
                } catch let error as CourierError {
                    throw error
                } catch let error as CancellationError {
                    throw error
                } catch {
                    throw CourierError(.invalidBody, "The request body could not be produced: \(error).", underlyingError: error)
                }
            }

            private mutating func take() async throws -> Data? {
                let chunk: Data?
                switch source {
                case .bytes(let data, let offset):
                    let end = Swift.min(data.count, offset + CourierRequestBody.chunkSize)
                    chunk = offset < end ? data.subdata(in: (data.startIndex + offset)..<(data.startIndex + end)) : nil
                    source = .bytes(data, offset: end)
                case .stream(var iterator):
                    chunk = try await iterator.next()
                    source = .stream(iterator)
                case .writer(let run):
                    chunk = try await run.body.next()
                    if chunk == nil {
                        // Checked before the transport writes the end, so a body whose
                        // trailers cannot be sent never looks complete to the server.
                        let trailers = run.body.trailers
                        try CourierRequestBody.checkTrailers(trailers, length: length)
                        self.trailers = trailers
                    }
                case .done:
                    return nil
                }
                guard let chunk else {
                    source = .done
                    reporter?.end()
                    return nil
                }
                reporter?.advance(by: chunk.count)
                return chunk
            }
        }
    }
}
