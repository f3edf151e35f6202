import Courier
import Foundation
import NIOConcurrencyHelpers

/// How one connection of an event stream ended, when it did not fail.
enum ConnectionEnd: Sendable {
    /// `204 No Content`: the server wants no more connections.
    case noContent
    /// The response ended.
    case ended
}

/// What one connection's reader has seen so far, kept for the decision that follows the
/// connection however it ended: a failure is thrown as it is, so that the request path (its
/// observers, metrics and spans) sees it too.
final class ConnectionProgress: Sendable {
    struct State {
        var lastEventID: String
        var reconnectionTime: Duration?
        /// Whether any of the body arrived.
        var received = false
    }

    private let state: NIOLockedValueBox<State>

    init(lastEventID: String) {
        state = NIOLockedValueBox(State(lastEventID: lastEventID))
    }

    var current: State { state.withLockedValue { $0 } }

    func update(_ change: (inout State) -> Void) { state.withLockedValue(change) }
}

/// What an ``EventStream`` connects to and how: the connections, reconnections and parsing
/// of one iteration.
struct EventSource: Sendable {
    /// Sends the request once, with `Last-Event-ID` set to the first argument (left out when
    /// empty), and hands its response to the reader.
    typealias Connect = @Sendable (String, @escaping @Sendable (StreamedResponse) async throws -> ConnectionEnd) async throws -> ConnectionEnd

    let connect: Connect
    let reconnection: EventStream.Reconnection
    let maximumEventSize: Int
    let initialLastEventID: String
    let clock: any Clock<Duration>

    /// Connects, reads and reconnects until the stream ends, handing events to `handoff`.
    func run(into handoff: EventHandoff) async {
        if let error = reconnection.configurationError ?? sizeError {
            return handoff.finish(throwing: error)
        }
        var schedule = ReconnectionSchedule(policy: reconnection)
        var lastEventID = initialLastEventID
        while true {
            let progress = ConnectionProgress(lastEventID: lastEventID)
            var failure: (any Error)?
            do {
                let end = try await connect(lastEventID, reader(progress: progress, handoff: handoff))
                if case .noContent = end { return handoff.finish() }
            } catch {
                guard Self.reconnects(after: error) else {
                    return handoff.finish(throwing: error is EventHandoff.Abandoned ? nil : error)
                }
                failure = error
            }
            let seen = progress.current
            lastEventID = seen.lastEventID
            schedule.serverSet(seen.reconnectionTime)
            guard let wait = seen.received ? schedule.afterLiveConnection() : schedule.afterFailedAttempt() else {
                return handoff.finish(throwing: failure)
            }
            do {
                try await clock.sleep(for: wait)
            } catch {
                return handoff.finish(throwing: CourierError(.cancelled, "The event stream was cancelled while it waited to reconnect."))
            }
        }
    }

    /// Reads one response: checks that it is an event stream, then parses its body and hands
    /// the events over as they complete, noting in `progress` what it has seen.
    private func reader(progress: ConnectionProgress, handoff: EventHandoff) -> @Sendable (StreamedResponse) async throws -> ConnectionEnd {
        let maximumEventSize = maximumEventSize
        return { response in
            if response.head.status == 204 { return .noContent }
            if let error = Self.contentTypeError(response.head) { throw error }
            var parser = EventParser(lastEventID: progress.current.lastEventID, maximumEventSize: maximumEventSize)
            for try await piece in response.body where !piece.isEmpty {
                let events = try parser.parse(piece)
                progress.update { seen in
                    seen.received = true
                    seen.lastEventID = parser.lastEventID
                    seen.reconnectionTime = parser.reconnectionTime ?? seen.reconnectionTime
                }
                for event in events { try await handoff.send(event) }
            }
            return .ended
        }
    }

    /// Whether a failure may cure itself: a connection that failed, dropped or fell silent.
    /// Everything else (a refused status or content type, an oversized event, a TLS or
    /// configuration error, a cancellation) ends the stream.
    static func reconnects(after error: any Error) -> Bool {
        guard let error = error as? CourierError else { return false }
        return [.connectionFailed, .timeout, .malformedResponse, .transport].contains(error.kind)
    }

    /// The error for a response that is not `text/event-stream`, or `nil`.
    static func contentTypeError(_ head: CourierResponse) -> CourierError? {
        let type = head.headers["Content-Type"] ?? ""
        let essence = type.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard essence != "text/event-stream" else { return nil }
        let said = type.isEmpty ? "no Content-Type" : "Content-Type \(type)"
        return CourierError(
            .validationFailed,
            "The server answered \(head.status) with \(said), not text/event-stream: this URL does not serve an event stream.",
            url: head.url,
            response: head
        )
    }

    private var sizeError: CourierError? {
        guard maximumEventSize < 1 else { return nil }
        return CourierError(.invalidConfiguration, "The event stream's maximumEventSize (\(maximumEventSize)) must be at least 1 byte.")
    }
}
