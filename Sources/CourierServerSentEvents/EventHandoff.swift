import Courier
import NIOConcurrencyHelpers

/// Hands events from the task that reads the stream to the one that iterates it, one at a
/// time: the reader waits while an event it handed over has not been taken, so the stream is
/// read no faster than it is consumed, and the connection's own flow control pushes back on
/// the server.
final class EventHandoff: Sendable {
    /// Thrown to the reading task once nobody iterates the stream any more.
    struct Abandoned: Error {}

    private struct State {
        var pending: EventStream.Event?
        var sender: CheckedContinuation<Void, any Error>?
        var senderCancelled = false
        var receiver: CheckedContinuation<EventStream.Event?, any Error>?
        var end: Result<Void, any Error>?
        var abandoned = false
        var reader: Task<Void, Never>?
    }

    private let state = NIOLockedValueBox(State())

    /// Keeps the reading task, to cancel it when the stream is abandoned.
    func attach(_ reader: Task<Void, Never>) {
        let abandoned = state.withLockedValue { state in
            state.reader = reader
            return state.abandoned
        }
        if abandoned { reader.cancel() }
    }

    // MARK: the reading side

    /// Hands `event` over and returns once it was taken.
    ///
    /// - Throws: ``Abandoned`` when nobody iterates the stream any more; `CancellationError`
    ///   when the reading task is cancelled while it waits.
    func send(_ event: EventStream.Event) async throws {
        enum Action {
            case give(CheckedContinuation<EventStream.Event?, any Error>)
            case wait
            case refuse
        }
        let action = state.withLockedValue { state -> Action in
            if state.abandoned { return .refuse }
            if let receiver = state.receiver {
                state.receiver = nil
                return .give(receiver)
            }
            state.pending = event
            return .wait
        }
        switch action {
        case .refuse: throw Abandoned()
        case .give(let receiver):
            receiver.resume(returning: event)
            return
        case .wait: break
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLockedValue { state -> Result<Void, any Error>? in
                    if state.abandoned { return .failure(Abandoned()) }
                    // Taken between the hand-over and this wait.
                    if state.pending == nil { return .success(()) }
                    if state.senderCancelled { return .failure(CancellationError()) }
                    state.sender = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sender = state.withLockedValue { state in
                state.senderCancelled = true
                defer { state.sender = nil }
                return state.sender
            }
            sender?.resume(throwing: CancellationError())
        }
    }

    /// Ends the stream: the receiver gets `nil` after the events already handed over, or
    /// `error`.
    func finish(throwing error: (any Error)? = nil) {
        let outcome: Result<Void, any Error> = error.map { .failure($0) } ?? .success(())
        let receiver = state.withLockedValue { state -> CheckedContinuation<EventStream.Event?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = outcome
            guard state.pending == nil else { return nil }
            defer { state.receiver = nil }
            return state.receiver
        }
        guard let receiver else { return }
        switch outcome {
        case .success: receiver.resume(returning: nil)
        case .failure(let error): receiver.resume(throwing: error)
        }
    }

    // MARK: the iterating side

    /// The next event, `nil` after the last one.
    ///
    /// - Throws: the error the stream ended with, once; ``Courier/CourierError/Kind/cancelled``
    ///   when the iterating task is cancelled while it waits.
    func next() async throws -> EventStream.Event? {
        enum Action {
            case take(EventStream.Event, CheckedContinuation<Void, any Error>?)
            case end(Result<Void, any Error>)
            case wait
        }
        let action = state.withLockedValue { state -> Action in
            if let event = state.pending {
                state.pending = nil
                defer { state.sender = nil }
                return .take(event, state.sender)
            }
            if let end = state.end {
                // An error is thrown once; afterwards the stream has simply ended.
                state.end = .success(())
                return .end(end)
            }
            return state.abandoned ? .end(.success(())) : .wait
        }
        switch action {
        case .take(let event, let sender):
            sender?.resume()
            return event
        case .end(let end):
            try end.get()
            return nil
        case .wait:
            break
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<EventStream.Event?, any Error>) in
                let (ready, sender) = state.withLockedValue { state -> (Result<EventStream.Event?, any Error>?, CheckedContinuation<Void, any Error>?) in
                    if let event = state.pending {
                        state.pending = nil
                        defer { state.sender = nil }
                        return (.success(event), state.sender)
                    }
                    if let end = state.end {
                        state.end = .success(())
                        return (end.map { nil }, nil)
                    }
                    if state.abandoned { return (.failure(Self.cancelled), nil) }
                    state.receiver = continuation
                    return (nil, nil)
                }
                sender?.resume()
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            abandon()
        }
    }

    /// Nobody iterates the stream any more: the reading task is cancelled, a waiting receiver
    /// is told the stream was cancelled.
    func abandon() {
        let (receiver, sender, reader) = state.withLockedValue { state in
            state.abandoned = true
            defer {
                state.receiver = nil
                state.sender = nil
                state.pending = nil
            }
            return (state.receiver, state.sender, state.reader)
        }
        receiver?.resume(throwing: Self.cancelled)
        sender?.resume(throwing: Abandoned())
        reader?.cancel()
    }

    private static var cancelled: CourierError {
        CourierError(.cancelled, "The task iterating the event stream was cancelled; the stream's connection was closed.")
    }
}
