import Foundation
import NIOConcurrencyHelpers

/// Passes the pieces a ``RequestBodyWriter`` writes to the transport that sends them, one at
/// a time, and the trailers its closure returns once it is done.
///
/// States: the writer's piece waits here until the reader takes it (the writer waits with
/// it); a reader waits here until a piece, the end or a failure arrives. ``close()`` ends it
/// from the reader's side: a waiting writer, and every later write, fail.
final class WrittenBody: Sendable {
    private struct State {
        var piece: Data?
        var writer: CheckedContinuation<Void, any Error>?
        var reader: CheckedContinuation<Data?, any Error>?
        var end: Result<Headers, any Error>?
        var isClosed = false
    }

    private let state = NIOLockedValueBox(State())

    /// Waits until the reader has taken `bytes`.
    func write(_ bytes: Data) async throws {
        guard !bytes.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            enum Action {
                case fail(CourierError)
                case hand(CheckedContinuation<Data?, any Error>)
                case wait
            }
            let action = state.withLockedValue { state -> Action in
                if state.isClosed { return .fail(Self.ended()) }
                if state.end != nil { return .fail(Self.misuse("after the body's closure returned")) }
                if state.writer != nil { return .fail(Self.misuse("while another write of the same body is waiting")) }
                if let reader = state.reader {
                    state.reader = nil
                    return .hand(reader)
                }
                state.piece = bytes
                state.writer = continuation
                return .wait
            }
            switch action {
            case .fail(let error): continuation.resume(throwing: error)
            case .hand(let reader):
                reader.resume(returning: bytes)
                continuation.resume()
            case .wait: break
            }
        }
    }

    /// The closure that writes the body returned `trailers`, or threw.
    func finish(_ result: Result<Headers, any Error>) {
        let reader = state.withLockedValue { state -> CheckedContinuation<Data?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = result
            defer { state.reader = nil }
            return state.reader
        }
        switch result {
        case .success: reader?.resume(returning: nil)
        case .failure(let error): reader?.resume(throwing: error)
        }
    }

    /// The next piece, or `nil` once the closure has returned.
    ///
    /// - Throws: what the closure threw; `CancellationError` when the reader's task is
    ///   cancelled while it waits.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await nextPiece()
        } onCancel: {
            state.withLockedValue { state in
                defer { state.reader = nil }
                return state.reader
            }?.resume(throwing: CancellationError())
        }
    }

    private func nextPiece() async throws -> Data? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
            let ready = state.withLockedValue { state -> (Result<Data?, any Error>, CheckedContinuation<Void, any Error>?)? in
                if Task.isCancelled { return (.failure(CancellationError()), nil) }
                if let piece = state.piece {
                    defer {
                        state.piece = nil
                        state.writer = nil
                    }
                    return (.success(piece), state.writer)
                }
                switch state.end {
                case .success: return (.success(nil), nil)
                case .failure(let error): return (.failure(error), nil)
                case nil:
                    state.reader = continuation
                    return nil
                }
            }
            guard let (result, writer) = ready else { return }
            writer?.resume()
            continuation.resume(with: result)
        }
    }

    /// Whether a write waits for the reader to take its piece.
    var hasWaitingWriter: Bool {
        state.withLockedValue { $0.writer != nil }
    }

    /// The trailers the closure returned; empty before it returned.
    var trailers: Headers {
        state.withLockedValue { state in
            if case .success(let trailers) = state.end { return trailers }
            return Headers()
        }
    }

    /// The reader is gone: a writer still waiting, and every later write, fail.
    func close() {
        let (writer, reader) = state.withLockedValue { state in
            state.isClosed = true
            state.piece = nil
            defer {
                state.writer = nil
                state.reader = nil
            }
            return (state.writer, state.reader)
        }
        writer?.resume(throwing: Self.ended())
        reader?.resume(throwing: Self.ended())
    }

    private static func ended() -> CourierError {
        CourierError(.cancelled, "The request ended before this piece of its body was sent (the server answered, or the request was cancelled or timed out).")
    }

    private static func misuse(_ when: String) -> CourierError {
        CourierError(.invalidBody, "RequestBodyWriter.write was called \(when); write the pieces of a body one after another, inside its closure.")
    }
}

/// Runs a body's closure for one attempt, while its reader holds it: when the reader lets go
/// (the body was sent, or the exchange ended early), the closure's task is cancelled and its
/// writer fails.
final class WriterRun: Sendable {
    let body = WrittenBody()
    private let task: Task<Void, Never>

    init(_ write: @escaping @Sendable (RequestBodyWriter) async throws -> Headers) {
        let body = self.body
        task = Task {
            do {
                body.finish(.success(try await write(RequestBodyWriter(body: body))))
            } catch {
                body.finish(.failure(error))
            }
        }
    }

    deinit {
        body.close()
        task.cancel()
    }
}

extension CourierRequestBody {
    /// Checks the trailers a body of `length` ended with, before its end is written.
    ///
    /// - Throws: ``CourierError/Kind/invalidBody`` for trailers on a body of known length,
    ///   ``CourierError/Kind/invalidHeader`` for a trailer that is not legal.
    static func checkTrailers(_ trailers: Headers, length: Int64?) throws(CourierError) {
        guard !trailers.isEmpty else { return }
        guard length == nil else {
            throw CourierError(
                .invalidBody,
                "A body that ends with trailers was given a length of \(length!) bytes; create it with length: nil, since HTTP/1.1 sends trailers only after a chunked body."
            )
        }
        try WireValidation.validateTrailers(trailers)
    }
}
