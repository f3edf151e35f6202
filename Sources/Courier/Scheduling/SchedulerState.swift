/// Which requests may be in flight: a global limit, a per-host limit, and a waiting line
/// ordered by priority, then by arrival.
///
/// A pure value: ``Scheduler`` reports arrivals, completions, cancellations and priority
/// changes, and the state answers with the tickets that may start. A waiting request is
/// never passed over by a later one of the same or lower priority that could not start
/// either; a request for a free host may start ahead of requests blocked by their own host's
/// limit.
///
/// With adaptive limits, each host's limit is its own ``AdaptiveLimit``, fed by the samples
/// ``finish(host:sample:)`` receives, and ``perHostLimit`` is only its upper bound.
///
/// Every operation costs O(hosts with waiting tickets) or less, amortised: each host keeps its
/// own ``WaitingLine``; a completion looks at the finished host's line alone, or, when the
/// global limit was full, compares the first tickets of the hosts with room; cancellations and
/// priority changes leave stale entries behind instead of searching the line.
struct SchedulerState {
    struct Ticket: Equatable {
        var id: UInt64
        var host: String
        var priority: RequestPriority
        var sequence: UInt64

        /// Whether this ticket should start before `other`: higher priority first, then
        /// earlier arrival.
        func precedes(_ other: Ticket) -> Bool {
            priority != other.priority ? priority > other.priority : sequence < other.sequence
        }
    }

    let globalLimit: Int
    let perHostLimit: Int
    private(set) var running = 0
    private(set) var runningPerHost: [String: Int] = [:]
    /// The waiting tickets by identifier; an entry of a line whose sequence differs from the
    /// ticket's here (or whose ticket is gone) is stale.
    private var live: [UInt64: Ticket] = [:]
    /// The lines of the hosts that have waiting tickets.
    private var lines: [String: WaitingLine] = [:]
    private var nextSequence: UInt64 = 0
    /// The limiter a host starts with; `nil` for fixed limits.
    private let freshLimit: AdaptiveLimit?
    /// The limiters of the hosts that have finished an exchange.
    private var adaptiveLimits: [String: AdaptiveLimit] = [:]

    /// A state with fixed per-host limits, or adaptive ones bounded by `perHostLimit` when
    /// `adaptive` is given.
    init(globalLimit: Int, perHostLimit: Int, adaptive: AdaptiveConcurrency? = nil) {
        self.globalLimit = max(1, globalLimit)
        self.perHostLimit = max(1, perHostLimit)
        freshLimit = adaptive.map { AdaptiveLimit($0, maximum: max(1, perHostLimit)) }
    }

    /// How many requests may be in flight to `host` now.
    func limit(for host: String) -> Int {
        guard let freshLimit else { return perHostLimit }
        return (adaptiveLimits[host] ?? freshLimit).limit
    }

    /// How many tickets wait.
    var waitingCount: Int { live.count }

    /// Whether the per-host limits adapt, and so need ``finish(host:sample:)``'s samples.
    var adapts: Bool { freshLimit != nil }

    /// The waiting tickets in the order they would start if every host had room; O(n log n),
    /// for tests and diagnostics.
    var waiting: [Ticket] { live.values.sorted { $0.precedes($1) } }

    /// A request arrives; returns `true` when it may start now, else it waits.
    mutating func arrive(id: UInt64, host: String, priority: RequestPriority) -> Bool {
        // No waiting ticket could start, so one for a host with room has nobody to pass.
        if hasRoom(for: host) {
            start(host)
            return true
        }
        enqueue(Ticket(id: id, host: host, priority: priority, sequence: takeSequence()))
        return false
    }

    /// A running request for `host` finished; returns the waiting tickets that start now.
    /// With adaptive limits, `sample` tells the host's limiter how the exchange went.
    mutating func finish(host: String, sample: AdaptiveLimit.Sample? = nil) -> StartedTickets {
        if let sample, var limiter = adaptiveLimits[host] ?? freshLimit {
            limiter.record(sample, inFlight: runningPerHost[host] ?? 0)
            adaptiveLimits[host] = limiter
        }
        // Between operations, no waiting ticket could start, so while the global limit had
        // room every waiting ticket was held by its own host's limit: only `host` can start
        // one now. Once the global limit was reached, any host with room may.
        let onlyHost = running < globalLimit ? host : nil
        running -= 1
        let remaining = (runningPerHost[host] ?? 1) - 1
        runningPerHost[host] = remaining > 0 ? remaining : nil
        return startWaiting(onlyFor: onlyHost)
    }

    /// Removes a waiting ticket; `false` when it is not waiting (it started, or never came).
    mutating func cancel(id: UInt64) -> Bool {
        guard let ticket = live.removeValue(forKey: id) else { return false }
        noteDeparture(of: ticket)
        return true
    }

    /// Moves a waiting ticket to `priority`, behind the tickets already waiting there.
    mutating func changePriority(id: UInt64, to priority: RequestPriority) {
        guard let ticket = live[id], ticket.priority != priority else { return }
        live[id] = nil
        noteDeparture(of: ticket)
        var moved = ticket
        moved.priority = priority
        moved.sequence = takeSequence()
        enqueue(moved)
    }

    private func hasRoom(for host: String) -> Bool {
        running < globalLimit && (runningPerHost[host] ?? 0) < limit(for: host)
    }

    private mutating func start(_ host: String) {
        running += 1
        runningPerHost[host, default: 0] += 1
    }

    /// Starts the best waiting tickets, one at a time, while a host with room has any; only
    /// those of `onlyHost` when given.
    private mutating func startWaiting(onlyFor onlyHost: String?) -> StartedTickets {
        var started = StartedTickets()
        while running < globalLimit, let host = nextHost(onlyFor: onlyHost) {
            var line = lines.removeValue(forKey: host)!
            let entry = line.popFirst { isLive($0) }!
            if !line.isEmpty { lines[host] = line }
            live[entry.id] = nil
            start(host)
            started.append(entry.id)
        }
        return started
    }

    /// The host whose ticket starts next: `onlyHost` if it has a waiting ticket and room,
    /// else, without `onlyHost`, the best of all hosts with room.
    private func nextHost(onlyFor onlyHost: String?) -> String? {
        guard let onlyHost else { return bestHostWithRoom() }
        return lines[onlyHost] != nil && hasRoom(for: onlyHost) ? onlyHost : nil
    }

    /// The host with room whose first ticket should start before every other such host's.
    private func bestHostWithRoom() -> String? {
        var best: (host: String, priority: RequestPriority, sequence: UInt64)?
        for (host, line) in lines where hasRoom(for: host) {
            guard let (priority, entry) = line.first else { continue }
            if let current = best,
                current.priority > priority || (current.priority == priority && current.sequence < entry.sequence)
            {
                continue
            }
            best = (host, priority, entry.sequence)
        }
        return best?.host
    }

    private mutating func enqueue(_ ticket: Ticket) {
        live[ticket.id] = ticket
        lines[ticket.host, default: WaitingLine()].append(
            WaitingLine.Entry(id: ticket.id, sequence: ticket.sequence), priority: ticket.priority
        )
    }

    /// Updates the line of a ticket already removed from ``live``.
    private mutating func noteDeparture(of ticket: Ticket) {
        var line = lines.removeValue(forKey: ticket.host)!
        line.noteDeparture(from: ticket.priority) { isLive($0) }
        if !line.isEmpty { lines[ticket.host] = line }
    }

    private func isLive(_ entry: WaitingLine.Entry) -> Bool {
        live[entry.id]?.sequence == entry.sequence
    }

    private mutating func takeSequence() -> UInt64 {
        nextSequence += 1
        return nextSequence
    }
}

/// The tickets one change started, in order.
typealias StartedTickets = FirstAndRest<UInt64>
