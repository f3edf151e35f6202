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
    private let inFlight = NIOLockedValueBox<[String: Load]>([:])

    /// One origin's requests in flight on each loop, and its home loop.
    private struct Load {
        var home: Int
        var counts: [Int]
    }

    /// A balancer over `loopCount` loops, numbered from 0.
    init(loopCount: Int) {
        self.loopCount = max(1, loopCount)
    }

    /// The home loop of `origin`.
    func home(of origin: String) -> Int {
        Int(UInt(bitPattern: origin.hashValue) % UInt(loopCount))
    }

    /// Runs `body` on the load of `origin`, in place in the table (one lookup; the home loop is
    /// computed when the origin enters the table).
    private func withLoad<Result>(of origin: String, _ body: (inout Load) -> Result) -> Result {
        let loopCount = self.loopCount
        return inFlight.withLockedValue { table in
            body(&table[origin, default: Load(home: home(of: origin), counts: Array(repeating: 0, count: loopCount))])
        }
    }

    /// Chooses the loop for a request to `origin` and counts it in flight there until
    /// ``release(_:loop:)``; also tells whether that loop had none of the origin's requests
    /// in flight, and so is likely idle.
    func acquire(_ origin: String) -> (loop: Int, wasIdle: Bool) {
        let loopCount = self.loopCount
        return withLoad(of: origin) { load in
            var chosen = load.home
            for offset in 1..<loopCount {
                let candidate = (load.home + offset) % loopCount
                if load.counts[candidate] < load.counts[chosen] { chosen = candidate }
            }
            let wasIdle = load.counts[chosen] == 0
            load.counts[chosen] += 1
            return (chosen, wasIdle)
        }
    }

    /// Counts a request to `origin` in flight on `loop`, chosen by the caller, until
    /// ``release(_:loop:)``.
    func acquire(_ origin: String, on loop: Int) {
        withLoad(of: origin) { $0.counts[loop] += 1 }
    }

    /// A request to `origin` that ``acquire(_:)`` or ``acquire(_:on:)`` sent to `loop` has
    /// ended.
    func release(_ origin: String, loop: Int) {
        inFlight.withLockedValue { table in
            guard let index = table.index(forKey: origin) else { return }
            let isIdle = table.values[index].counts.withUnsafeMutableBufferPointer { counts in
                counts[loop] = max(0, counts[loop] - 1)
                return !counts.contains { $0 > 0 }
            }
            // An idle origin's counts are kept, up to a bound, so that its next request does
            // not allocate them again.
            if isIdle, table.count > Self.idleOriginsKept { table.remove(at: index) }
        }
    }

    /// How many requests to `origin` are in flight on each loop.
    func load(of origin: String) -> [Int] {
        inFlight.withLockedValue { $0[origin]?.counts } ?? Array(repeating: 0, count: loopCount)
    }

    /// How many origins have requests in flight.
    var originsInFlight: Int {
        inFlight.withLockedValue { $0.values.count { $0.counts.contains { $0 > 0 } } }
    }

    /// How many origins the table holds, in flight or kept while idle.
    var originsHeld: Int {
        inFlight.withLockedValue { $0.count }
    }
}
