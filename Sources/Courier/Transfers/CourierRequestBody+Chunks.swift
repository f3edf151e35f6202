import Foundation

extension CourierRequestBody {
    /// The largest piece a body held in memory is cut into when it is streamed.
    static let chunkSize = 64 * 1024

    /// Whether the transport must send the body piece by piece: it is produced while it is
    /// sent, or someone counts its bytes.
    package var isStreamed: Bool {
        if case .stream = content { return true }
        return progressReporter != nil
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
            case .bytes(let data): return Iterator(source: .bytes(data, offset: 0), reporter: body.progressReporter)
            case .stream(let makeStream): return Iterator(source: .stream(makeStream().makeAsyncIterator()), reporter: body.progressReporter)
            }
        }

        package struct Iterator: AsyncIteratorProtocol {
            enum Source {
                case bytes(Data, offset: Int)
                case stream(AsyncThrowingStream<Data, any Error>.Iterator)
                case done
            }

            var source: Source
            let reporter: ProgressReporter?

            package mutating func next() async throws -> Data? {
                let chunk: Data?
                switch source {
                case .bytes(let data, let offset):
                    let end = Swift.min(data.count, offset + CourierRequestBody.chunkSize)
                    chunk = offset < end ? data.subdata(in: (data.startIndex + offset)..<(data.startIndex + end)) : nil
                    source = .bytes(data, offset: end)
                case .stream(var iterator):
                    chunk = try await iterator.next()
                    source = .stream(iterator)
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
