/// Which requests may be in flight: a global limit, a per-host limit, and a waiting line
/// ordered by priority, then by arrival.
///
/// A pure value: ``Scheduler`` reports arrivals, completions, cancellations and priority
/// changes, and the state answers with the tickets that may start. A waiting request is
/// never passed over by a later one of the same or lower priority that could not start
/// either; a request for a free host may start ahead of requests blocked by their own host's
/// limit.
struct SchedulerState {
    struct Ticket: Equatable {
        var id: UInt64
        var host: String
        var priority: RequestPriority
        var sequence: UInt64
    }

    var globalLimit: Int
    var perHostLimit: Int
    private(set) var running = 0
    private(set) var runningPerHost: [String: Int] = [:]
    /// Ordered: higher priority first, then earlier arrival.
    private(set) var waiting: [Ticket] = []
    private var nextSequence: UInt64 = 0

    init(globalLimit: Int, perHostLimit: Int) {
        self.globalLimit = max(1, globalLimit)
        self.perHostLimit = max(1, perHostLimit)
    }

    /// A request arrives; returns `true` when it may start now, else it waits.
    mutating func arrive(id: UInt64, host: String, priority: RequestPriority) -> Bool {
        if hasRoom(for: host) {
            start(host)
            return true
        }
        nextSequence += 1
        insert(Ticket(id: id, host: host, priority: priority, sequence: nextSequence))
        return false
    }

    /// A running request for `host` finished; returns the waiting tickets that start now.
    mutating func finish(host: String) -> [UInt64] {
        running -= 1
        let remaining = (runningPerHost[host] ?? 1) - 1
        runningPerHost[host] = remaining > 0 ? remaining : nil
        var started: [UInt64] = []
        var index = 0
        while index < waiting.count, running < globalLimit {
            let ticket = waiting[index]
            if hasRoom(for: ticket.host) {
                waiting.remove(at: index)
                start(ticket.host)
                started.append(ticket.id)
            } else {
                index += 1
            }
        }
        return started
    }

    /// Removes a waiting ticket; `false` when it is not waiting (it started, or never came).
    mutating func cancel(id: UInt64) -> Bool {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return false }
        waiting.remove(at: index)
        return true
    }

    /// Moves a waiting ticket to `priority`, behind the tickets already waiting there.
    mutating func changePriority(id: UInt64, to priority: RequestPriority) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        var ticket = waiting.remove(at: index)
        guard ticket.priority != priority else {
            insert(ticket)
            return
        }
        ticket.priority = priority
        nextSequence += 1
        ticket.sequence = nextSequence
        insert(ticket)
    }

    private func hasRoom(for host: String) -> Bool {
        running < globalLimit && (runningPerHost[host] ?? 0) < perHostLimit
    }

    private mutating func start(_ host: String) {
        running += 1
        runningPerHost[host, default: 0] += 1
    }

    private mutating func insert(_ ticket: Ticket) {
        // Binary search for the first ticket that should come after this one.
        var low = 0, high = waiting.count
        while low < high {
            let middle = (low + high) / 2
            let other = waiting[middle]
            if other.priority > ticket.priority || (other.priority == ticket.priority && other.sequence < ticket.sequence) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        waiting.insert(ticket, at: low)
    }
}
