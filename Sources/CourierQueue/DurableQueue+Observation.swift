import Courier
import Foundation

extension DurableQueue {
    /// Every event from now on: queued, attempt, waiting, delivered, failed, expired. Each
    /// call returns a new sequence; it ends when the queue is closed.
    ///
    /// ```swift
    /// for await event in await queue.events() {
    ///     if case .delivered(let record, let response) = event { print(record.id, response.status) }
    /// }
    /// ```
    public func events() -> AsyncStream<QueueEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: QueueEvent.self, bufferingPolicy: .bufferingNewest(4096))
        guard !closed else {
            continuation.finish()
            return stream
        }
        let key = UUID()
        subscribers[key] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(key) }
        }
        return stream
    }

    private func unsubscribe(_ key: UUID) {
        subscribers[key] = nil
    }

    /// Tells the subscribers.
    func publish(_ event: QueueEvent) {
        QueueMetrics.record(event)
        for subscriber in subscribers.values { subscriber.yield(event) }
    }

    /// The record once an event about it satisfies `isDone`; the current record at once when
    /// `alreadyDone` says so. Subscribes before reading the record, so that no event is missed.
    func wait(
        for id: String, alreadyDone: (QueueRecord) -> Bool, until isDone: (QueueEvent) -> Bool
    ) async throws(CourierError) -> QueueRecord {
        let events = events()
        guard let current = try await store.record(id: id) else {
            throw CourierError(.queueRecordNotFound, "The record \(id) is no longer in the queue; it was dropped.")
        }
        if alreadyDone(current) { return current }
        for await event in events where event.record.id == id && isDone(event) {
            return event.record
        }
        if Task.isCancelled { throw CourierError(.cancelled, "Waiting for the record \(id) was cancelled; it stays in the queue.") }
        throw CourierError(.clientShutdown, "The queue was closed before the record \(id) was settled; it stays in the database.")
    }

    /// The record after its first attempt ended, or at once when it has to wait for its turn
    /// or its host.
    func firstAttempt(of id: String) async throws(CourierError) -> QueueRecord {
        let started = deliveries[id] != nil
        return try await wait(for: id, alreadyDone: { record in record.attempts > 0 ? record.state != .inFlight : !started }) { event in
            switch event {
            case .queued, .attempt: return false
            case .waiting, .delivered, .failed, .expired, .needsCredentials: return true
            }
        }
    }

    /// The record once it is delivered, failed or expired.
    func outcome(of id: String) async throws(CourierError) -> QueueRecord {
        try await wait(for: id, alreadyDone: { $0.state.isFinal }) { $0.record.state.isFinal }
    }

    /// Delivers what is waiting and returns once nothing in the storage waits or is in flight, whichever worker sent it (`true`), or
    /// `false` when `deadline` has passed or when what is left only waits for credentials the
    /// queue was not given (see ``QueueEvent/needsCredentials(_:missing:)``). Starts delivery
    /// when the queue was opened without it, and resumes it when ``pause()`` stopped it.
    public func run(deadline: Duration? = nil) async throws(CourierError) -> Bool {
        let events = events()
        try await startDelivery()
        await resume()
        if let settled = try await settledState() { return settled }
        let clock = configuration.clock
        let changes = store.changes()
        let emptied: Bool? = await withTaskGroup(of: Bool?.self) { group in
            group.addTask {
                for await event in events {
                    if case .needsCredentials = event {} else if !event.record.state.isFinal { continue }
                    if let settled = try? await self.settledState() { return settled }
                }
                return nil
            }
            // Other workers settle records too.
            group.addTask {
                for await _ in changes {
                    if let settled = try? await self.settledState() { return settled }
                }
                return nil
            }
            if let deadline {
                group.addTask {
                    do { try await clock.sleep(for: deadline) } catch { return nil }
                    return false
                }
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let emptied { return emptied }
        return try await store.activeCount() == 0
    }

    /// `true` when nothing waits or is in flight, `false` when what is left only waits for
    /// credentials, `nil` while something can still move. Asks the storage nothing while this
    /// worker still delivers; then counts the records, and reads them only while some wait for
    /// credentials.
    private func settledState() async throws(CourierError) -> Bool? {
        // Settled by this worker too: its last events are published once its deliveries end.
        guard deliveries.isEmpty else { return nil }
        if try await store.activeCount() == 0 { return true }
        guard !waitingForCredentials.isEmpty else { return nil }
        return QueuePlanner.waitsOnlyForCredentials(try await store.activeSlots(), waiting: waitingForCredentials) ? false : nil
    }
}

/// A durable request written to the queue: its record, and ways to wait for what comes of it.
public struct DurableRequestHandle: Sendable {
    /// The record as it was written.
    public let record: QueueRecord
    let queue: DurableQueue

    /// The record's identifier.
    public var id: String { record.id }

    /// The record after its first attempt: delivered, failed, or waiting for another one.
    /// Returns at once, with the record pending, when the request must wait for earlier ones
    /// to its host or for the host to answer.
    public func firstAttempt() async throws(CourierError) -> QueueRecord {
        try await queue.firstAttempt(of: record.id)
    }

    /// The record once it is delivered, failed or expired; the response is in its
    /// ``QueueRecord/outcome``.
    public func outcome() async throws(CourierError) -> QueueRecord {
        try await queue.outcome(of: record.id)
    }
}
