import Courier
import Foundation

/// Decides, from the records waiting or in flight, what the queue does now: which records
/// expire, which are sent, which hosts are probed, and when to look again.
///
/// A pure function of its inputs, so that ordering and expiry are tested without a database,
/// a network or a clock.
package struct QueuePlanner {
    /// What planning needs of a record: no request, no body.
    package struct Slot: Equatable, Sendable {
        var id: String
        var origin: String
        var isOrdered: Bool
        var state: QueueRecord.State
        var nextAttemptAt: Date
        var expiresAt: Date?
        var createdAt: Date
        /// The lease of the worker sending it, when it is in flight.
        var lease: QueueLease?

        package init(
            id: String, origin: String, isOrdered: Bool, state: QueueRecord.State, nextAttemptAt: Date, expiresAt: Date?,
            createdAt: Date = Date(timeIntervalSince1970: 0), lease: QueueLease? = nil
        ) {
            self.id = id
            self.origin = origin
            self.isOrdered = isOrdered
            self.state = state
            self.nextAttemptAt = nextAttemptAt
            self.expiresAt = expiresAt
            self.createdAt = createdAt
            self.lease = lease
        }
    }

    struct Plan: Equatable {
        /// Pending (or abandoned) records whose maximum age has passed.
        var expire: [String] = []
        /// Records to send now, oldest first: pending ones that are due, and in-flight ones
        /// whose worker's lease ended or whose worker is gone.
        var send: [String] = []
        /// The holders of the abandoned records in ``send`` and ``expire`` that are known to be
        /// gone before their leases end.
        var goneHolders: [String] = []
        /// Origins to probe now.
        var probe: [String] = []
        /// When to plan again, if nothing else happens first.
        var wakeAt: Date?

        mutating func wake(at date: Date?) {
            guard let date else { return }
            wakeAt = min(wakeAt ?? date, date)
        }
    }

    /// - Parameters:
    ///   - records: the records waiting or in flight, in queue order.
    ///   - now: the present.
    ///   - sending: records this process is sending already.
    ///   - unreachable: origins that failed to connect, with the time of their next probe.
    ///   - probing: origins being probed now.
    ///   - isGone: whether a lease's holder is known to have died.
    ///   - isWatched: whether a lease's holder is one whose death ``isGone`` notices (a
    ///     process of this host): planning looks again after ``watchInterval`` while such a
    ///     holder lives, since its death changes nothing in the storage to wake this worker.
    static func plan(
        _ records: [Slot], now: Date, sending: Set<String>, unreachable: [String: Date], probing: Set<String>,
        isGone: (String) -> Bool = { _ in false }, isWatched: (String) -> Bool = { _ in false }
    ) -> Plan {
        var plan = Plan()
        // Origins whose oldest ordered record is not finished: later ordered records wait.
        var busyOrigins = Set<String>()
        var gone = Set<String>()
        for record in records {
            let origin = record.origin
            let ordered = record.isOrdered
            // A record in flight is another worker's until its lease ends or its holder is gone;
            // then it is this worker's to send again, as a pending record is.
            var abandoned = false
            if record.state == .inFlight, !sending.contains(record.id) {
                if let lease = record.lease, lease.expiresAt > now {
                    if isGone(lease.holder) {
                        abandoned = true
                        gone.insert(lease.holder)
                    } else {
                        plan.wake(at: lease.expiresAt)
                        if isWatched(lease.holder) { plan.wake(at: now.addingTimeInterval(watchInterval)) }
                    }
                } else {
                    abandoned = true
                }
            }
            let waiting = record.state == .pending || abandoned
            if waiting, let expiry = record.expiresAt, expiry <= now {
                plan.expire.append(record.id)
                continue
            }
            let waitsBehindEarlier = ordered && busyOrigins.contains(origin)
            if ordered { busyOrigins.insert(origin) }
            guard waiting, !sending.contains(record.id) else { continue }
            plan.wake(at: record.expiresAt)
            if waitsBehindEarlier { continue }
            if let probeAt = unreachable[origin] {
                if probeAt <= now, !probing.contains(origin), !plan.probe.contains(origin) {
                    plan.probe.append(origin)
                } else if probeAt > now {
                    plan.wake(at: probeAt)
                }
                continue
            }
            if abandoned || record.nextAttemptAt <= now {
                plan.send.append(record.id)
            } else {
                plan.wake(at: record.nextAttemptAt)
            }
        }
        plan.goneHolders = gone.sorted()
        return plan
    }

    /// How long to wait until `date`: zero for a date that has passed (or is not a number),
    /// and at most ``longestWait``, so that a far or damaged date read from the database is a
    /// long wait, never an overflow.
    static func delay(until date: Date, now: Date) -> Duration {
        let seconds = date.timeIntervalSince(now)
        guard seconds > 0 else { return .zero }
        return .milliseconds(Int64(min(seconds, longestWait) * 1000))
    }

    /// How often, in seconds, planning looks whether a watched holder has died.
    static let watchInterval: TimeInterval = 1

    /// The longest wait ``delay(until:now:)`` gives, in seconds: about 31 years.
    static let longestWait: TimeInterval = 1e9

    /// Whether nothing in `records` can move until credentials are given: each one is a
    /// pending record in `waiting` (its last turn found credentials missing) or an ordered
    /// record behind such an ordered record for the same origin. `false` for no records.
    static func waitsOnlyForCredentials(_ records: [Slot], waiting: Set<String>) -> Bool {
        guard !records.isEmpty else { return false }
        var blockedOrigins = Set<String>()
        for record in records {
            if record.state == .pending, waiting.contains(record.id) {
                if record.isOrdered { blockedOrigins.insert(record.origin) }
            } else if !(record.isOrdered && blockedOrigins.contains(record.origin)) {
                return false
            }
        }
        return true
    }

    /// Plans from whole records.
    static func plan(
        _ records: [QueueRecord], now: Date, sending: Set<String>, unreachable: [String: Date], probing: Set<String>,
        isGone: (String) -> Bool = { _ in false }, isWatched: (String) -> Bool = { _ in false }
    ) -> Plan {
        let slots = records.map {
            Slot(
                id: $0.id, origin: $0.request.origin, isOrdered: $0.request.isOrdered, state: $0.state,
                nextAttemptAt: $0.nextAttemptAt, expiresAt: $0.expiresAt, createdAt: $0.createdAt, lease: $0.lease
            )
        }
        return plan(slots, now: now, sending: sending, unreachable: unreachable, probing: probing, isGone: isGone, isWatched: isWatched)
    }
}
