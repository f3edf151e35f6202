import Courier
import Foundation

/// The two sides of a full-duplex exchange that take turns: the body writes a piece, then
/// waits until the response's reader has seen what the server answered to it.
struct TurnTaking: Sendable {
    private let turns: AsyncStream<Void>
    private let nextTurn: AsyncStream<Void>.Continuation

    init() {
        (turns, nextTurn) = AsyncStream<Void>.makeStream()
    }

    /// A body of `rounds` pieces of one byte `A`, each written once the reader has seen the
    /// answer to the one before, ending with `trailers`.
    func echoedBody(rounds: Int, trailers: Headers = [:]) -> CourierRequestBody {
        var body = CourierRequestBody.writing { writer in
            var turns = self.turns.makeAsyncIterator()
            for _ in 0..<rounds {
                try await writer.write(Data("A".utf8))
                guard await turns.next() != nil else { break }
            }
            return trailers
        }
        body.isDuplex = true
        return body
    }

    /// A body that sends back each piece the reader passes on, and ends when the reader does.
    static func answeringBody() -> (body: CourierRequestBody, pass: AsyncStream<Data>.Continuation) {
        let (pieces, pass) = AsyncStream<Data>.makeStream()
        let body = CourierRequestBody.writing { writer in
            for await piece in pieces { try await writer.write(piece) }
            return [:]
        }
        return (body, pass)
    }

    /// Waits until the reader has seen an answer; `false` once the reader is done.
    func waitForTurn() async -> Bool {
        var turns = self.turns.makeAsyncIterator()
        return await turns.next() != nil
    }

    /// The reader saw the answer: the body's next piece may go.
    func answered() {
        nextTurn.yield()
    }

    /// The reader is done; a body still waiting for its turn ends.
    func finish() {
        nextTurn.finish()
    }
}

/// What a full-duplex exchange read: its pieces as they came, and its trailers.
struct DuplexReading: Sendable {
    var pieces: [Data] = []
    var trailers: Headers?
    var bytes: Int { pieces.reduce(0) { $0 + $1.count } }
}
