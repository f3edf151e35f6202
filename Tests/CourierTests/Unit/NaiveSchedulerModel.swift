@testable import Courier

/// The scheduling rules written the slow, obvious way: one sorted array, scanned in full on
/// every completion. ``SchedulerState`` must answer exactly as this model does.
struct NaiveSchedulerModel {
    let globalLimit: Int
    let perHostLimit: Int
    private(set) var running = 0
    private(set) var runningPerHost: [String: Int] = [:]
    /// Higher priority first, then earlier arrival.
    private(set) var waiting: [SchedulerState.Ticket] = []
    private var nextSequence: UInt64 = 0

    init(globalLimit: Int, perHostLimit: Int) {
        self.globalLimit = globalLimit
        self.perHostLimit = perHostLimit
    }

    mutating func arrive(id: UInt64, host: String, priority: RequestPriority) -> Bool {
        if hasRoom(host) {
            running += 1
            runningPerHost[host, default: 0] += 1
            return true
        }
        nextSequence += 1
        place(SchedulerState.Ticket(id: id, host: host, priority: priority, sequence: nextSequence))
        return false
    }

    mutating func finish(host: String) -> [UInt64] {
        running -= 1
        runningPerHost[host]! -= 1
        var started: [UInt64] = []
        var remaining: [SchedulerState.Ticket] = []
        for ticket in waiting {
            if hasRoom(ticket.host) {
                running += 1
                runningPerHost[ticket.host, default: 0] += 1
                started.append(ticket.id)
            } else {
                remaining.append(ticket)
            }
        }
        waiting = remaining
        return started
    }

    mutating func cancel(id: UInt64) -> Bool {
        let before = waiting.count
        waiting.removeAll { $0.id == id }
        return waiting.count < before
    }

    mutating func changePriority(id: UInt64, to priority: RequestPriority) {
        guard let index = waiting.firstIndex(where: { $0.id == id }), waiting[index].priority != priority else { return }
        var ticket = waiting.remove(at: index)
        ticket.priority = priority
        nextSequence += 1
        ticket.sequence = nextSequence
        place(ticket)
    }

    private func hasRoom(_ host: String) -> Bool {
        running < globalLimit && runningPerHost[host, default: 0] < perHostLimit
    }

    private mutating func place(_ ticket: SchedulerState.Ticket) {
        let index = waiting.firstIndex { ticket.precedes($0) } ?? waiting.count
        waiting.insert(ticket, at: index)
    }
}
