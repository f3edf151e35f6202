import Courier
import Foundation
import NIOConcurrencyHelpers

/// The events of a `text/event-stream` response (Server-Sent Events), as they arrive; made by
/// ``Courier/CourierClient/events(_:reconnection:maximumEventSize:)``.
///
/// Each connection is a request on the client's one path, with its credentials (a refreshed
/// bearer token included), cookies, redirects, proxy, TLS settings, observers and spans. The
/// stream is read no faster than it is iterated. When a connection ends or drops, the stream
/// connects again after the server's reconnection time with `Last-Event-ID` (see
/// ``Reconnection``), so the loop sees every complete event once and never half of one.
///
/// ```swift
/// for try await event in client.events(CourierRequest<Void>(path: "/updates")) {
///     print(event.type, event.data)
/// }
/// ```
///
/// Iterate it once. The sequence ends after a `204 No Content` or, for a stream that does not
/// reconnect, with its response; it throws ``Courier/CourierError`` when the response is not
/// an event stream (kind ``Courier/CourierError/Kind/validationFailed``, with the response),
/// when an event outgrows the limit (``Courier/CourierError/Kind/responseTooLarge``), when the
/// attempts to reconnect run out (the last failure), and when the iterating task is cancelled
/// (``Courier/CourierError/Kind/cancelled``). Breaking out of the loop closes the connection.
public struct EventStream: AsyncSequence, Sendable {
    /// An event.
    public typealias Element = Event

    let source: EventSource

    /// Creates the iterator; the first connection is made by its first `next()`.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: source)
    }

    /// Iterates an ``EventStream``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let reading: Reading

        init(source: EventSource) {
            reading = Reading(source: source)
        }

        /// The next event, or `nil` after the last one.
        public mutating func next() async throws -> Event? {
            try await reading.next()
        }
    }

    /// The connections of one iteration: started by the first `next()`, abandoned when the
    /// iterator goes away.
    private final class Reading: Sendable {
        private let source: EventSource
        private let handoff = EventHandoff()
        private let started = NIOLockedValueBox(false)

        init(source: EventSource) {
            self.source = source
        }

        func next() async throws -> Event? {
            let first = started.withLockedValue { started in
                defer { started = true }
                return !started
            }
            if first {
                let source = source
                let handoff = handoff
                handoff.attach(Task { await source.run(into: handoff) })
            }
            return try await handoff.next()
        }

        deinit {
            handoff.abandon()
        }
    }
}
