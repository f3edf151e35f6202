import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Chooses the event loop a request runs on: the caller's own loop when it runs on one of the
/// group's loops, else the loop with the fewest requests in flight, and among equals the loop
/// used last.
///
/// One request at a time thus always lands on the same loop (the loop that owns the kept-alive
/// connection, so no callback hops between threads), while many requests spread evenly.
final class EventLoopBalancer: Sendable {
    private let loops: [any EventLoop]
    private let state: NIOLockedValueBox<(inFlight: [Int], last: Int)>

    init(group: any EventLoopGroup) {
        var loops: [any EventLoop] = []
        for loop in group.makeIterator() { loops.append(loop) }
        self.loops = loops.isEmpty ? [group.next()] : loops
        self.state = NIOLockedValueBox((Array(repeating: 0, count: max(1, loops.count)), 0))
    }

    /// Takes a loop for one request; give it back with ``release(_:)``.
    func acquire() -> Int {
        let current = MultiThreadedEventLoopGroup.currentEventLoop.flatMap { current in
            loops.firstIndex { $0 === current }
        }
        return state.withLockedValue { state in
            if let current {
                state.inFlight[current] += 1
                return current
            }
            var best = state.last
            for index in state.inFlight.indices where state.inFlight[index] < state.inFlight[best] {
                best = index
            }
            state.inFlight[best] += 1
            state.last = best
            return best
        }
    }

    /// Returns the loop taken by ``acquire()``.
    func release(_ index: Int) {
        state.withLockedValue { $0.inFlight[index] -= 1 }
    }

    func loop(_ index: Int) -> any EventLoop { loops[index] }
}
