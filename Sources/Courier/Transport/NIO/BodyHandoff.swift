import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Hands a response from the event loop to an async reader.
///
/// Pieces the reader has not taken yet wait here, up to ``budget`` bytes; the reader takes all
/// of them at once. Past the budget the producer's promise is held until the reader has
/// drained them, so a body of any size holds at most about `budget` bytes (plus one piece)
/// here. A reader that keeps up takes one piece per wake-up; one that falls behind takes many,
/// so a slow reader pays for fewer thread hand-offs instead of more.
///
/// A reader that collects the body whole (``init(collects:)``) is woken once for the head and
/// the body together: when the response has ended, or when ``budget`` bytes wait. A small
/// response then costs its reader one wake-up instead of one for the head and one for each
/// piece, as a collecting delegate costs on AsyncHTTPClient's road.
final class BodyHandoff: Sendable {
    /// The most bytes held for the reader before the producer is made to wait.
    static let budget = 512 * 1024

    /// Whether the reader wants the whole body, and so is woken only at the end or the budget.
    private let collects: Bool
    /// Whether a waiting reader is woken once per read burst (``burstEnded()``), taking every
    /// piece the burst brought, rather than once per piece.
    private let wakesPerBurst: Bool

    private struct State {
        var head: (HTTPResponseHead, ClockReading)?
        var headWaiter: CheckedContinuation<(HTTPResponseHead, ClockReading), any Error>?
        var pending: [ByteBuffer] = []
        var pendingBytes = 0
        /// The producer's promise, held while the pieces waiting here exceed the budget.
        var held: EventLoopPromise<Void>?
        var reader: CheckedContinuation<[ByteBuffer]?, any Error>?
        var outcome: Result<Void, any Error>?
        /// The trailer fields that came after the last piece, once the body ended.
        var trailers: Headers?
        /// Whether the connection may carry another exchange: set when the response ended whole.
        var keepAlive = false
        var isClosed = false
    }

    private let state = NIOLockedValueBox(State())

    /// A handoff whose reader takes the body piece by piece, or, when it `collects`, whole.
    /// With `wakesPerBurst`, the producer calls ``burstEnded()`` after each read burst, and a
    /// waiting reader is woken then for all the burst's pieces (or at the budget).
    init(collects: Bool = false, wakesPerBurst: Bool = false) {
        self.collects = collects
        self.wakesPerBurst = wakesPerBurst
    }

    /// A read burst ended: a reader waiting for pieces takes every piece that waits.
    func burstEnded() {
        guard wakesPerBurst, !collects else { return }
        let handed = state.withLockedValue { state -> (CheckedContinuation<[ByteBuffer]?, any Error>, [ByteBuffer])? in
            guard let reader = state.reader, !state.pending.isEmpty else { return nil }
            state.reader = nil
            defer {
                state.pending = []
                state.pendingBytes = 0
            }
            return (reader, state.pending)
        }
        if let (reader, pieces) = handed { reader.resume(returning: pieces) }
    }

    /// The response head arrived.
    func receive(_ head: HTTPResponseHead) {
        let arrival = (head, ClockReading.now)
        let waiter = state.withLockedValue { state -> CheckedContinuation<(HTTPResponseHead, ClockReading), any Error>? in
            state.head = arrival
            // A collecting reader waits on for the body.
            guard !collects else { return nil }
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: arrival)
    }

    /// A body piece arrived; the returned future completes when the producer may send more.
    func offer(_ piece: ByteBuffer, on loop: any EventLoop) -> EventLoopFuture<Void> {
        typealias HeadWaiter = CheckedContinuation<(HTTPResponseHead, ClockReading), any Error>
        enum Action {
            case refuse
            case proceed
            case hand(CheckedContinuation<[ByteBuffer]?, any Error>, [ByteBuffer])
            case wait(EventLoopPromise<Void>, waking: (HeadWaiter, (HTTPResponseHead, ClockReading))?)
        }
        let action = state.withLockedValue { state -> Action in
            if state.isClosed { return .refuse }
            if !collects, !wakesPerBurst, let reader = state.reader {
                state.reader = nil
                return .hand(reader, [piece])
            }
            state.pending.append(piece)
            state.pendingBytes += piece.readableBytes
            guard state.pendingBytes >= Self.budget else { return .proceed }
            if let reader = state.reader {
                // A reader woken at the budget (one that collects, or is woken per burst):
                // it takes everything that waits.
                state.reader = nil
                defer {
                    state.pending = []
                    state.pendingBytes = 0
                }
                return .hand(reader, state.pending)
            }
            let promise = loop.makePromise(of: Void.self)
            state.held = promise
            // A collecting reader still waiting for the head is woken now, to drain.
            guard let waiter = state.headWaiter, let head = state.head else { return .wait(promise, waking: nil) }
            state.headWaiter = nil
            return .wait(promise, waking: (waiter, head))
        }
        switch action {
        case .refuse:
            return loop.makeFailedFuture(CancellationError())
        case .proceed:
            return loop.makeSucceededVoidFuture()
        case .hand(let reader, let pieces):
            reader.resume(returning: pieces)
            return loop.makeSucceededVoidFuture()
        case .wait(let promise, let waking):
            if let (waiter, head) = waking { waiter.resume(returning: head) }
            return promise.futureResult
        }
    }

    /// The exchange ended, after its last piece or with a failure, and after `remainder`, the
    /// pieces that came before the end and were not offered (taken without back-pressure).
    /// A piece not taken yet is still delivered before the failure: the bytes arrived, and a
    /// resumed download need not fetch them again. After a whole response, `keepAlive` says
    /// whether its connection may carry another exchange.
    func end(_ outcome: Result<Void, any Error>, trailers: HTTPHeaders? = nil, after remainder: [ByteBuffer] = [], keepAlive: Bool = false) {
        let (headWaiter, head, reader, released, handed) = state.withLockedValue { state in
            var handed: [ByteBuffer] = []
            if state.outcome == nil {
                state.outcome = outcome
                if case .success = outcome {
                    state.trailers = Headers(trailerFields: trailers)
                    state.keepAlive = keepAlive
                }
                // Pieces come after the head: without it, there is no one to give them to.
                if !remainder.isEmpty, !state.isClosed, state.head != nil {
                    state.pending.append(contentsOf: remainder)
                    state.pendingBytes += remainder.reduce(0) { $0 + $1.readableBytes }
                }
                // A waiting reader has had the head; it takes what waits now, and the end at
                // its next call. (Only a reader that collects or is woken per burst waits
                // while pieces do.)
                if state.reader != nil, !state.pending.isEmpty {
                    handed = state.pending
                    state.pending = []
                    state.pendingBytes = 0
                }
            }
            defer {
                state.headWaiter = nil
                state.reader = nil
                state.held = nil
            }
            return (state.headWaiter, state.head, state.reader, state.held, handed)
        }
        released?.succeed()
        if let headWaiter {
            // A collecting reader waits for the head until the end, whatever the end: the
            // pieces that arrived are read before the failure, as a reader's would be.
            if let head {
                headWaiter.resume(returning: head)
            } else {
                switch outcome {
                case .success: headWaiter.resume(throwing: HTTPClientError.remoteConnectionClosed)
                case .failure(let error): headWaiter.resume(throwing: error)
                }
            }
        }
        guard let reader else { return }
        if !handed.isEmpty { return reader.resume(returning: handed) }
        switch outcome {
        case .success: reader.resume(returning: nil)
        case .failure(let error): reader.resume(throwing: error)
        }
    }

    /// Whether a reader waits for pieces now.
    var readerWaits: Bool {
        state.withLockedValue { $0.reader != nil }
    }

    /// The trailer fields that followed the body, once it ended; `nil` before then and after
    /// a failure.
    var trailers: Headers? {
        state.withLockedValue { $0.trailers }
    }

    /// Whether the response ended whole on a connection that may carry another exchange.
    var keptAlive: Bool {
        state.withLockedValue { state in
            guard case .success = state.outcome else { return false }
            return state.keepAlive
        }
    }

    /// The reader is done; later pieces are refused. Returns whether the exchange was still
    /// running (the caller then cancels it).
    func close() -> Bool {
        let (running, dropped) = state.withLockedValue { state in
            state.isClosed = true
            defer {
                state.pending = []
                state.pendingBytes = 0
                state.held = nil
            }
            return (state.outcome == nil, state.held)
        }
        dropped?.fail(CancellationError())
        return running
    }

    /// Waits for the response head and when it arrived; a collecting reader waits until the
    /// response ended or the budget filled as well.
    nonisolated(nonsending) func head() async throws -> (HTTPResponseHead, ClockReading) {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLockedValue { state -> Result<(HTTPResponseHead, ClockReading), any Error>? in
                // A collecting reader has the head once the response ended or the budget filled.
                if let head = state.head, !collects || state.outcome != nil || state.held != nil { return .success(head) }
                if case .failure(let error) = state.outcome { return .failure(error) }
                if state.outcome != nil { return .failure(HTTPClientError.remoteConnectionClosed) }
                state.headWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// Every piece that arrived since the last call (at least one, waiting for it if need be),
    /// or `nil` after the last one.
    nonisolated(nonsending) func next() async throws -> [ByteBuffer]? {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLockedValue { state -> (Result<[ByteBuffer]?, any Error>, EventLoopPromise<Void>?)? in
                if !state.pending.isEmpty {
                    defer {
                        state.pending = []
                        state.pendingBytes = 0
                        state.held = nil
                    }
                    return (.success(state.pending), state.held)
                }
                switch state.outcome {
                case .success: return (.success(nil), nil)
                case .failure(let error): return (.failure(error), nil)
                case nil:
                    state.reader = continuation
                    return nil
                }
            }
            guard let (result, released) = ready else { return }
            released?.succeed()
            continuation.resume(with: result)
        }
    }

    /// The bytes of `pieces`, in order, in one value.
    static func joined(_ pieces: [ByteBuffer]) -> Data {
        if pieces.count == 1 { return pieces[0].withUnsafeReadableBytes { Data($0) } }
        var data = Data(capacity: pieces.reduce(0) { $0 + $1.readableBytes })
        for piece in pieces { piece.withUnsafeReadableBytes { data.append(contentsOf: $0) } }
        return data
    }
}

extension Headers {
    /// Trailer fields as received by NIO, none when `fields` is `nil`.
    init(trailerFields fields: HTTPHeaders?) {
        guard let fields, !fields.isEmpty else {
            self.init()
            return
        }
        self.init(received: fields)
    }

    /// Fields as received by NIO, in order, copied once.
    init(received fields: HTTPHeaders) {
        self.init(fields: fields.map { Field(name: $0.name, value: $0.value) })
    }
}
