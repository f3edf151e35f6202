import CoreMetrics
import Foundation

/// The queue's metrics, recorded through swift-metrics into the factory it gives at each event
/// (`MetricsSystem.factory`: the one the process bootstrapped, or a task's own); nothing is
/// recorded while that is the no-op factory.
///
/// | metric | kind | what |
/// |---|---|---|
/// | `courier.queue.depth` | gauge | records pending or in flight, at the start of each planning round |
/// | `courier.queue.oldest_age` | gauge | seconds since the oldest of those records was written (0 when there is none), at the same moment |
/// | `courier.queue.events` | counter | each ``QueueEvent``, by `courier.queue.event`: `queued`, `attempt`, `waiting`, `delivered`, `failed`, `expired`, `needs_credentials` |
enum QueueMetrics {
    /// `courier.queue.depth`
    static let depth = "courier.queue.depth"
    /// `courier.queue.events`
    static let events = "courier.queue.events"
    /// `courier.queue.oldest_age`
    static let oldestAge = "courier.queue.oldest_age"

    /// Where to record now; `nil` when nothing would be kept.
    private static var factory: (any MetricsFactory)? {
        let factory = MetricsSystem.factory
        return factory is NOOPMetricsHandler ? nil : factory
    }

    /// Counts `event`.
    static func record(_ event: QueueEvent) {
        guard let factory else { return }
        Counter(label: events, dimensions: [("courier.queue.event", name(of: event))], factory: factory).increment()
    }

    /// Records how many records are pending or in flight, and the age of the oldest.
    static func recordDepth(_ active: [QueuePlanner.Slot], now: Date) {
        guard let factory else { return }
        Gauge(label: depth, factory: factory).record(active.count)
        let oldest = active.lazy.map(\.createdAt).min()
        Gauge(label: oldestAge, factory: factory).record(max(0, oldest.map { now.timeIntervalSince($0) } ?? 0))
    }

    /// The event's value of `courier.queue.event`.
    static func name(of event: QueueEvent) -> String {
        switch event {
        case .queued: "queued"
        case .attempt: "attempt"
        case .waiting: "waiting"
        case .delivered: "delivered"
        case .failed: "failed"
        case .expired: "expired"
        case .needsCredentials: "needs_credentials"
        }
    }
}
