import Testing

@testable import Courier

@Suite("Scheduler state")
struct SchedulerStateTests {
    @Test func globalAndPerHostLimits() {
        var state = SchedulerState(globalLimit: 2, perHostLimit: 1)
        #expect(state.arrive(id: 1, host: "a", priority: .default) == true)
        #expect(state.arrive(id: 2, host: "a", priority: .default) == false)  // host a is full
        #expect(state.arrive(id: 3, host: "b", priority: .default) == true)
        #expect(state.arrive(id: 4, host: "c", priority: .default) == false)  // global is full
        #expect(state.running == 2)
        #expect(state.finish(host: "a") == [2])
        #expect(state.finish(host: "b") == [4])
        #expect(state.waiting.isEmpty)
    }

    @Test func higherPriorityStartsFirstAndFIFOWithinAPriority() {
        var state = SchedulerState(globalLimit: 1, perHostLimit: 1)
        #expect(state.arrive(id: 0, host: "h", priority: .default) == true)
        for (id, priority) in [(1, RequestPriority.low), (2, .default), (3, .high), (4, .default), (5, .high), (6, .low)] {
            #expect(state.arrive(id: UInt64(id), host: "h", priority: priority) == false)
        }
        var order: [UInt64] = []
        for _ in 0..<7 { order += state.finish(host: "h") }
        #expect(order == [3, 5, 2, 4, 1, 6])
    }

    @Test func aFreeHostIsNotHeldBackByAnotherHostsQueue() {
        var state = SchedulerState(globalLimit: 10, perHostLimit: 1)
        #expect(state.arrive(id: 1, host: "slow", priority: .default) == true)
        #expect(state.arrive(id: 2, host: "slow", priority: .high) == false)
        #expect(state.arrive(id: 3, host: "fast", priority: .low) == true)
    }

    @Test func cancellingRemovesOnlyWaitingTickets() {
        var state = SchedulerState(globalLimit: 1, perHostLimit: 1)
        #expect(state.arrive(id: 1, host: "h", priority: .default) == true)
        #expect(state.arrive(id: 2, host: "h", priority: .default) == false)
        #expect(state.arrive(id: 3, host: "h", priority: .default) == false)
        #expect(state.cancel(id: 2) == true)
        #expect(state.cancel(id: 2) == false)
        #expect(state.cancel(id: 1) == false)  // running
        #expect(state.finish(host: "h") == [3])
    }

    @Test func changingPriorityReordersTheLine() {
        var state = SchedulerState(globalLimit: 1, perHostLimit: 1)
        #expect(state.arrive(id: 1, host: "h", priority: .default) == true)
        for id in 2...4 { #expect(state.arrive(id: UInt64(id), host: "h", priority: .low) == false) }
        #expect(state.arrive(id: 5, host: "h", priority: .high) == false)
        state.changePriority(id: 4, to: .high)  // behind 5, which was already high
        state.changePriority(id: 3, to: .low)  // unchanged: keeps its place
        var order: [UInt64] = []
        for _ in 0..<5 { order += state.finish(host: "h") }
        #expect(order == [5, 4, 2, 3])
    }

    @Test(arguments: [(1, 1), (3, 2), (8, 3), (64, 6)])
    func randomWorkNeverBreaksTheLimitsNorLeavesRoomUnused(global: Int, perHost: Int) {
        var generator = SplitMix(seed: UInt64(global * 31 + perHost))
        var state = SchedulerState(globalLimit: global, perHostLimit: perHost)
        var running: [String] = []
        var nextID: UInt64 = 0
        let hosts = ["a", "b", "c", "d"]
        for _ in 0..<5_000 {
            if running.isEmpty || generator.next() % 2 == 0 {
                nextID += 1
                let host = hosts[Int(generator.next() % 4)]
                let priority = RequestPriority.allCases[Int(generator.next() % 3)]
                if state.arrive(id: nextID, host: host, priority: priority) { running.append(host) }
            } else {
                let host = running.remove(at: Int(generator.next() % UInt64(running.count)))
                for id in state.finish(host: host) {
                    _ = id
                    // The started ticket's host: look it up from the line we no longer hold.
                    running.append(startedHosts(state: state, running: running, id: id))
                }
            }
            #expect(state.running <= global)
            #expect(state.running == running.count)
            #expect(state.runningPerHost.values.allSatisfy { $0 <= perHost })
            // Nothing waits that could run.
            let idleRoom = state.running < global
            #expect(!(idleRoom && state.waiting.contains { (state.runningPerHost[$0.host] ?? 0) < perHost }))
        }
    }

    /// The host of a ticket that just started, recovered from the per-host counts.
    private func startedHosts(state: SchedulerState, running: [String], id: UInt64) -> String {
        for (host, count) in state.runningPerHost where count > running.filter({ $0 == host }).count {
            return host
        }
        return "?"
    }
}

/// A small deterministic generator for repeatable random tests.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
