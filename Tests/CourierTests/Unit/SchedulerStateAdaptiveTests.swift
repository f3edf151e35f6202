import Testing

@testable import Courier

@Suite("Scheduler state with adaptive limits")
struct SchedulerStateAdaptiveTests {
    static let good = AdaptiveLimitTests.good()
    static let overload = AdaptiveLimitTests.overload

    @Test func aGrowingLimitStartsWaitingTickets() {
        var state = SchedulerState(globalLimit: 10, perHostLimit: 4, adaptive: AdaptiveConcurrency(initialLimit: 1))
        #expect(state.limit(for: "h") == 1)
        #expect(state.arrive(id: 1, host: "h", priority: .default) == true)
        for id in UInt64(2)...5 { #expect(state.arrive(id: id, host: "h", priority: .default) == false) }
        // One success at a limit of one: the limit becomes two, so two tickets take the slots.
        #expect(state.finish(host: "h", sample: Self.good) == [2, 3])
        #expect(state.limit(for: "h") == 2)
        #expect(state.finish(host: "h", sample: Self.good) == [4])
        #expect(state.limit(for: "h") == 2)
        #expect(state.finish(host: "h", sample: Self.good) == [5])
        #expect(state.limit(for: "h") == 3)
        #expect(state.waitingCount == 0 && state.running == 2)
    }

    @Test func aShrinkingLimitHoldsTicketsBack() {
        var state = SchedulerState(globalLimit: 10, perHostLimit: 4, adaptive: AdaptiveConcurrency(initialLimit: 4))
        for id in UInt64(1)...4 { #expect(state.arrive(id: id, host: "h", priority: .default) == true) }
        #expect(state.arrive(id: 5, host: "h", priority: .default) == false)
        #expect(state.finish(host: "h", sample: Self.overload).isEmpty)
        #expect(state.limit(for: "h") == 3)
        #expect(state.finish(host: "h", sample: Self.overload).isEmpty)
        #expect(state.limit(for: "h") == 2 && state.running == 2)
        #expect(state.finish(host: "h", sample: Self.good) == [5])
        #expect(state.arrive(id: 6, host: "h", priority: .default) == false, "two in flight at a limit of two")
    }

    @Test func eachHostHasItsOwnLimit() {
        var state = SchedulerState(globalLimit: 10, perHostLimit: 4, adaptive: AdaptiveConcurrency(initialLimit: 3))
        #expect(state.arrive(id: 1, host: "a", priority: .default) == true)
        #expect(state.finish(host: "a", sample: Self.overload).isEmpty)
        #expect(state.limit(for: "a") == 2)
        #expect(state.limit(for: "b") == 3)
    }

    @Test func fixedLimitsIgnoreTheSamples() {
        var state = SchedulerState(globalLimit: 10, perHostLimit: 1)
        #expect(state.arrive(id: 1, host: "h", priority: .default) == true)
        #expect(state.arrive(id: 2, host: "h", priority: .default) == false)
        #expect(state.finish(host: "h", sample: Self.overload) == [2])
        #expect(state.limit(for: "h") == 1)
    }

    @Test(arguments: [(4, 2), (16, 6)])
    func randomWorkStaysWithinEveryLimitAndLeavesNoRoomUnused(global: Int, perHost: Int) {
        var generator = SplitMix(seed: UInt64(global * 7 + perHost))
        let adaptive = AdaptiveConcurrency(initialLimit: 2, latencyTolerance: 3)
        var state = SchedulerState(globalLimit: global, perHostLimit: perHost, adaptive: adaptive)
        var hosts: [UInt64: String] = [:]
        var running: [String] = []
        var nextID: UInt64 = 0
        var limitsSeen: Set<Int> = []
        for step in 0..<5_000 {
            if running.isEmpty || generator.next() % 2 == 0 {
                nextID += 1
                let host = "host-\(generator.next() % 5)"
                hosts[nextID] = host
                if state.arrive(id: nextID, host: host, priority: .default) { running.append(host) }
            } else {
                let host = running.remove(at: Int(generator.next() % UInt64(running.count)))
                let sample =
                    generator.next() % 8 == 0
                    ? Self.overload
                    : AdaptiveLimitTests.good(10 + Int(generator.next() % 15))
                running += state.finish(host: host, sample: sample).map { hosts[$0]! }
            }
            #expect(state.running <= global && state.running == running.count)
            #expect(state.runningPerHost.values.allSatisfy { $0 <= perHost })
            if step.isMultiple(of: 10) {
                let blocked = state.waiting.contains { (state.runningPerHost[$0.host] ?? 0) < state.limit(for: $0.host) }
                #expect(!(state.running < global && blocked), "a ticket waits although its host has room")
            }
            limitsSeen.insert(state.limit(for: "host-0"))
        }
        #expect(limitsSeen.count > 1, "the limit moved")
        #expect(limitsSeen.allSatisfy { (1...perHost).contains($0) })
    }
}
