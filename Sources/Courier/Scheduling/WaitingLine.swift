/// The tickets waiting for one host: one first-in, first-out queue per priority.
///
/// Removal is lazy. A cancelled ticket, or the old place of a ticket whose priority changed,
/// stays in its queue as a stale entry until it reaches the front, where it is dropped; the
/// owner tells live entries from stale ones. The front of every queue is always live, and the
/// stale entries are swept out whenever they outnumber the live ones, so each operation costs
/// O(1) amortised.
struct WaitingLine {
    /// A ticket's place: its identifier and the sequence number it queued with.
    struct Entry: Equatable {
        var id: UInt64
        var sequence: UInt64
    }

    /// One queue per priority, indexed by ``slot(_:)``.
    private var queues = [FIFO<Entry>](repeating: FIFO(), count: RequestPriority.allCases.count)
    /// Live tickets in the line.
    private(set) var count = 0
    /// Stale entries still stored in the queues.
    private var stale = 0

    /// Whether no live ticket waits.
    var isEmpty: Bool { count == 0 }

    /// The ticket that should start next: the oldest of the highest priority.
    var first: (priority: RequestPriority, entry: Entry)? {
        for priority in RequestPriority.allCases.reversed() {
            if let entry = queues[Self.slot(priority)].first { return (priority, entry) }
        }
        return nil
    }

    /// Queues a ticket behind the others of its priority.
    mutating func append(_ entry: Entry, priority: RequestPriority) {
        queues[Self.slot(priority)].append(entry)
        count += 1
    }

    /// Removes and returns the ticket that should start next.
    mutating func popFirst(isLive: (Entry) -> Bool) -> Entry? {
        guard let (priority, entry) = first else { return nil }
        queues[Self.slot(priority)].popFirst()
        count -= 1
        dropStaleFront(of: priority, isLive: isLive)
        return entry
    }

    /// Notes that a ticket queued at `priority` left the line (cancelled, or moved to another
    /// priority); `isLive` must already answer `false` for its entry.
    mutating func noteDeparture(from priority: RequestPriority, isLive: (Entry) -> Bool) {
        count -= 1
        stale += 1
        dropStaleFront(of: priority, isLive: isLive)
        if stale > max(64, count) {
            for slot in queues.indices { queues[slot].filter(isLive) }
            stale = 0
        }
    }

    private mutating func dropStaleFront(of priority: RequestPriority, isLive: (Entry) -> Bool) {
        let slot = Self.slot(priority)
        while let entry = queues[slot].first, !isLive(entry) {
            queues[slot].popFirst()
            stale -= 1
        }
    }

    private static func slot(_ priority: RequestPriority) -> Int {
        priority.rawValue - RequestPriority.low.rawValue
    }
}
