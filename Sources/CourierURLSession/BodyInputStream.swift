import Courier
import Foundation
import NIOConcurrencyHelpers

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A streamed request body as the `InputStream` URLSession reads; the work is its
/// ``BodyPump``'s.
final class BodyInputStream: InputStream {
    private let pump: BodyPump

    init(pump: BodyPump) {
        self.pump = pump
        super.init(data: Data())
    }

    override func open() { pump.start() }
    override func close() { pump.cancel() }
    override var hasBytesAvailable: Bool { pump.hasBytesAvailable }
    override var streamStatus: Stream.Status { pump.streamStatus }
    override var streamError: (any Error)? { pump.streamError }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        pump.read(buffer, maxLength: length)
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }
}

/// Moves a streamed request body to URLSession: a task takes the body's pieces one at a
/// time, and the next piece is taken only once URLSession has read the previous one, so a
/// body read from disk never piles up in memory.
///
/// URLSession reads a body stream on a thread of its own, so ``read(_:maxLength:)`` blocks
/// there until a piece is ready, the body has ended, or the exchange is given up
/// (``cancel()``). The producer runs on Swift's pool and never waits for that thread while
/// holding the lock.
final class BodyPump: Sendable {
    private struct State {
        var piece = Data()
        var isFinished = false
        var error: CourierError?
        var isOpen = false
        /// The producer, waiting until the current piece has been read.
        var roomWaiter: CheckedContinuation<Void, Never>?
    }

    private let state = NIOLockedValueBox(State())
    private let ready = DispatchSemaphore(value: 0)
    private let body: CourierRequestBody
    private let url: URL
    private let producer = NIOLockedValueBox<Task<Void, Never>?>(nil)

    init(body: CourierRequestBody, url: URL) {
        self.body = body
        self.url = url
    }

    /// Starts taking the body's pieces; called when URLSession opens the stream.
    func start() {
        let starts = state.withLockedValue { state in
            defer { state.isOpen = true }
            return !state.isOpen
        }
        guard starts else { return }
        let task = Task { [body, url] in
            do {
                // One piece ahead: a body that fails its own checks at the end (a file that
                // changed while it was read) fails before its last piece is handed over, so
                // the server never receives a complete-looking body.
                // A body's trailers, known at its end, cannot go out through URLSession.
                var pieces = body.chunks().makeAsyncIterator()
                var current = try await pieces.next()
                if current == nil { try Self.refuseTrailers(pieces.trailers, url: url) }
                while let piece = current {
                    let following = try await pieces.next()
                    if following == nil { try Self.refuseTrailers(pieces.trailers, url: url) }
                    if !piece.isEmpty { await self.hand(piece) }
                    if Task.isCancelled { return }
                    current = following
                }
                self.finish(nil)
            } catch {
                let failure = (error as? CourierError) ?? CourierError(.invalidBody, "The request body could not be produced: \(error).", url: url, underlyingError: error)
                self.finish(failure)
            }
        }
        producer.withLockedValue { $0 = task }
    }

    /// Throws when a body ended with trailers, which URLSession has no way to send.
    private static func refuseTrailers(_ trailers: Headers, url: URL) throws(CourierError) {
        guard !trailers.isEmpty else { return }
        throw CourierError(
            .invalidConfiguration,
            "The request body ended with trailers (\(trailers.map(\.name).joined(separator: ", "))), which URLSession cannot send; use the default transport, or send them as headers.",
            url: url
        )
    }

    /// Gives up the body: the producer stops and a blocked `read` returns.
    func cancel() {
        producer.withLockedValue { $0?.cancel() }
        finish(CourierError(.cancelled, "The request was cancelled while its body was being sent.", url: url))
    }

    /// Waits until the piece before has been read, then offers `piece`.
    private func hand(_ piece: Data) async {
        while true {
            let offered = state.withLockedValue { state -> Bool? in
                if state.isFinished { return false }
                guard state.piece.isEmpty else { return nil }
                state.piece = piece
                return true
            }
            switch offered {
            case true?:
                ready.signal()
                return
            case false?:
                return
            case nil:
                await withCheckedContinuation { continuation in
                    let hasRoom = state.withLockedValue { state -> Bool in
                        if state.isFinished || state.piece.isEmpty { return true }
                        state.roomWaiter = continuation
                        return false
                    }
                    if hasRoom { continuation.resume() }
                }
            }
        }
    }

    private func finish(_ error: CourierError?) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            state.error = error
            defer { state.roomWaiter = nil }
            return state.roomWaiter
        }
        ready.signal()
        waiter?.resume()
    }

    /// Whether `read` has anything to say: bytes, or a failure (which URLSession learns only
    /// from `read`, and which must abort the upload rather than end it).
    var hasBytesAvailable: Bool {
        state.withLockedValue { !$0.piece.isEmpty || !$0.isFinished || $0.error != nil }
    }

    var streamStatus: Stream.Status {
        state.withLockedValue { state in
            if state.error != nil { return .error }
            if state.isFinished && state.piece.isEmpty { return .atEnd }
            return state.isOpen ? .open : .notOpen
        }
    }

    var streamError: (any Error)? {
        state.withLockedValue { $0.error }
    }

    /// The failure that ended the body, other than its being given up.
    var failure: CourierError? {
        state.withLockedValue { state in state.error?.kind == .cancelled ? nil : state.error }
    }

    /// Copies up to `length` bytes of the body into `buffer`, waiting for them; 0 at the end,
    /// -1 when the body failed.
    func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard length > 0 else { return 0 }
        while true {
            let outcome = state.withLockedValue { state -> (Int?, CheckedContinuation<Void, Never>?) in
                if !state.piece.isEmpty {
                    let count = min(length, state.piece.count)
                    state.piece.withUnsafeBytes { bytes in
                        buffer.update(from: bytes.bindMemory(to: UInt8.self).baseAddress!, count: count)
                    }
                    state.piece = state.piece.count == count ? Data() : Data(state.piece.dropFirst(count))
                    guard state.piece.isEmpty else { return (count, nil) }
                    defer { state.roomWaiter = nil }
                    return (count, state.roomWaiter)
                }
                if state.isFinished { return (state.error == nil ? 0 : -1, nil) }
                return (nil, nil)
            }
            if let waiter = outcome.1 { waiter.resume() }
            if let count = outcome.0 { return count }
            ready.wait()
        }
    }
}
