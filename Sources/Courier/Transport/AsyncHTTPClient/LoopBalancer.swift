import NIOConcurrencyHelpers

/// Chooses the event loop for each request sent from outside the event loops, so that its
/// callbacks run on the loop of the connection that carries it.
///
/// AsyncHTTPClient runs a request's callbacks on the loop the request names and prefers an
/// idle connection of that loop; when it takes one of another loop, every part of the
/// response crosses between the two threads. Naming a loop at random, as it does itself for a
/// caller off the loops, misses the connection half the time with two loops.
///
/// Each origin has a home loop. A request goes to the loop with the fewest of that origin's
/// requests in flight, the home loop when it is among them: requests sent one after another
/// all go home, and so reuse the one connection there; requests sent at once spread evenly,
/// and so do the connections opened for them. Once nothing of an origin is in flight, its
/// counts stay while the table holds fewer than ``idleOriginsKept`` origins, and are forgotten
/// otherwise, so the table holds at most that many origins beside those in flight.
struct LoopBalancer: Sendable {
    /// How many origins the table holds before an origin with nothing in flight is forgotten.
    static let idleOriginsKept = 64
    private let loopCount: Int
    private let inFlight = NIOLockedValueBox<[String: [Int]]>([:])

    /// A balancer over `loopCount` loops, numbered from 0.
    init(loopCount: Int) {
        self.loopCount = max(1, loopCount)
    }

    /// The home loop of `origin`.
    func home(of origin: String) -> Int {
        Int(UInt(bitPattern: origin.hashValue) % UInt(loopCount))
    }

    /// Chooses the loop for a request to `origin` and counts it in flight there until
    /// ``release(_:loop:)``; also tells whether that loop had none of the origin's requests
    /// in flight, and so is likely idle.
    func acquire(_ origin: String) -> (loop: Int, wasIdle: Bool) {
        let home = home(of: origin)
        let loopCount = self.loopCount
        return inFlight.withLockedValue { table in
            // Taken out and put back, so that the counts are changed in place, not copied.
            var counts = table.removeValue(forKey: origin) ?? Array(repeating: 0, count: loopCount)
            var chosen = home
            for offset in 1..<loopCount {
                let candidate = (home + offset) % loopCount
                if counts[candidate] < counts[chosen] { chosen = candidate }
            }
            let wasIdle = counts[chosen] == 0
            counts[chosen] += 1
            table[origin] = counts
            return (chosen, wasIdle)
        }
    }

    /// Counts a request to `origin` in flight on `loop`, chosen by the caller, until
    /// ``release(_:loop:)``.
    func acquire(_ origin: String, on loop: Int) {
        let loopCount = self.loopCount
        inFlight.withLockedValue { table in
            var counts = table.removeValue(forKey: origin) ?? Array(repeating: 0, count: loopCount)
            counts[loop] += 1
            table[origin] = counts
        }
    }

    /// A request to `origin` that ``acquire(_:)`` or ``acquire(_:on:)`` sent to `loop` has
    /// ended.
    func release(_ origin: String, loop: Int) {
        inFlight.withLockedValue { table in
            guard var counts = table.removeValue(forKey: origin) else { return }
            counts[loop] = max(0, counts[loop] - 1)
            // An idle origin's counts are kept, up to a bound, so that its next request does
            // not allocate them again.
            if table.count < Self.idleOriginsKept || counts.contains(where: { $0 > 0 }) { table[origin] = counts }
        }
    }

    /// How many requests to `origin` are in flight on each loop.
    func load(of origin: String) -> [Int] {
        inFlight.withLockedValue { $0[origin] } ?? Array(repeating: 0, count: loopCount)
    }

    /// How many origins have requests in flight.
    var originsInFlight: Int {
        inFlight.withLockedValue { $0.values.count { $0.contains { $0 > 0 } } }
    }

    /// How many origins the table holds, in flight or kept while idle.
    var originsHeld: Int {
        inFlight.withLockedValue { $0.count }
    }
}
