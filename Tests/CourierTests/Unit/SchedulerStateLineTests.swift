import Testing

@testable import Courier

@Suite("Scheduler state with long lines and many hosts")
struct SchedulerStateLineTests {
    /// Finishes the running request of `host` repeatedly, following the started tickets'
    /// hosts, and returns the order in which tickets started.
    private static func drain(_ state: inout SchedulerState, first host: String, hosts: [UInt64: String]) -> [UInt64] {
        var order: [UInt64] = []
        var finishing = [host]
        while let next = finishing.popLast() {
            for id in state.finish(host: next) {
                order.append(id)
                finishing.append(hosts[id]!)
            }
        }
        return order
    }

    @Test func manyHostsStartInPriorityThenArrivalOrder() {
        var state = SchedulerState(globalLimit: 1, perHostLimit: 1)
        #expect(state.arrive(id: 0, host: "blocker", priority: .default) == true)
        var hosts: [UInt64: String] = [:]
        var tickets: [(id: UInt64, priority: RequestPriority)] = []
        for id in UInt64(1)...1_000 {
            let priority = RequestPriority.allCases[Int(id % 3)]
            hosts[id] = "host-\(id % 200)"
            tickets.append((id, priority))
            #expect(state.arrive(id: id, host: hosts[id]!, priority: priority) == false)
        }
        #expect(state.waitingCount == 1_000)
        let expected = tickets.sorted { $0.priority != $1.priority ? $0.priority > $1.priority : $0.id < $1.id }.map(\.id)
        #expect(Self.drain(&state, first: "blocker", hosts: hosts) == expected)
        #expect(state.waitingCount == 0 && state.running == 0)
    }

    @Test func aFullHostDoesNotHoldBackHundredsOfOthers() {
        var state = SchedulerState(globalLimit: 300, perHostLimit: 2)
        // The first host fills up and keeps a long line; 200 other hosts each get one request.
        #expect(state.arrive(id: 1, host: "busy", priority: .low) == true)
        #expect(state.arrive(id: 2, host: "busy", priority: .low) == true)
        for id in UInt64(3)...1_000 { #expect(state.arrive(id: id, host: "busy", priority: .high) == false) }
        for id in UInt64(1_001)...1_200 { #expect(state.arrive(id: id, host: "other-\(id)", priority: .low) == true) }
        #expect(state.running == 202)
        #expect(state.finish(host: "busy") == [3])
        #expect(state.finish(host: "other-1001").isEmpty)
    }

    @Test func cancellingThousandsKeepsTheCountAndTheOrder() {
        var state = SchedulerState(globalLimit: 1, perHostLimit: 1)
        #expect(state.arrive(id: 0, host: "h", priority: .default) == true)
        for id in UInt64(1)...20_000 { #expect(state.arrive(id: id, host: "h", priority: .default) == false) }
        var kept: [UInt64] = []
        for id in UInt64(1)...20_000 {
            if id.isMultiple(of: 20) {
                kept.append(id)
            } else {
                #expect(state.cancel(id: id) == true)
            }
        }
        #expect(state.waitingCount == 1_000)
        #expect(state.cancel(id: 1) == false, "already cancelled")
        #expect(Self.drain(&state, first: "h", hosts: Dictionary(uniqueKeysWithValues: kept.map { ($0, "h") })) == kept)
        #expect(state.waitingCount == 0)
    }

    @Test func raisingATicketDeepInALongLineMovesItToTheFront() {
        var state = SchedulerState(globalLimit: 1, perHostLimit: 1)
        #expect(state.arrive(id: 0, host: "h", priority: .default) == true)
        for id in UInt64(1)...20_000 { #expect(state.arrive(id: id, host: "h", priority: .low) == false) }
        state.changePriority(id: 19_999, to: .high)
        state.changePriority(id: 15_000, to: .default)
        state.changePriority(id: 12_345, to: .low)  // unchanged: keeps its place
        #expect(state.waitingCount == 20_000)
        var order: [UInt64] = []
        for _ in 0..<5 { order += state.finish(host: "h") }
        #expect(order == [19_999, 15_000, 1, 2, 3])
        #expect(state.waitingCount == 19_995)
    }

    @Test func flippingOnePriorityThousandsOfTimesLeavesOneTicket() {
        var state = SchedulerState(globalLimit: 1, perHostLimit: 1)
        #expect(state.arrive(id: 0, host: "h", priority: .default) == true)
        #expect(state.arrive(id: 1, host: "h", priority: .default) == false)
        #expect(state.arrive(id: 2, host: "h", priority: .default) == false)
        for round in 0..<10_000 { state.changePriority(id: 1, to: round.isMultiple(of: 2) ? .low : .high) }
        #expect(state.waitingCount == 2)
        #expect(state.waiting.map(\.id) == [1, 2])  // ends high
        #expect(state.finish(host: "h") == [1])
        #expect(state.finish(host: "h") == [2])
        #expect(state.finish(host: "h").isEmpty)
    }

    @Test func theWaitingCountFollowsEveryKindOfChange() {
        var state = SchedulerState(globalLimit: 3, perHostLimit: 1)
        for id in UInt64(1)...3 { #expect(state.arrive(id: id, host: "h\(id)", priority: .default) == true) }
        for id in UInt64(4)...1_003 { #expect(state.arrive(id: id, host: "h\(id % 3 + 1)", priority: .low) == false) }
        #expect(state.waitingCount == 1_000)
        for id in UInt64(4)...303 { #expect(state.cancel(id: id) == true) }
        #expect(state.waitingCount == 700)
        for id in UInt64(304)...503 { state.changePriority(id: id, to: id.isMultiple(of: 2) ? .high : .low) }
        #expect(state.waitingCount == 700)
        #expect(state.finish(host: "h1").count == 1)
        #expect(state.waitingCount == 699)
        #expect(state.waiting.count == state.waitingCount)
        #expect(state.cancel(id: 1) == false, "running, not waiting")
        #expect(state.waitingCount == 699)
    }

    @Test(arguments: [(1, 1), (4, 1), (16, 2), (64, 6)])
    func randomWorkOverManyHostsMatchesTheNaiveModel(global: Int, perHost: Int) {
        var generator = SplitMix(seed: UInt64(global * 131 + perHost))
        var state = SchedulerState(globalLimit: global, perHostLimit: perHost)
        var model = NaiveSchedulerModel(globalLimit: global, perHostLimit: perHost)
        var hosts: [UInt64: String] = [:]
        var running: [String] = []
        var nextID: UInt64 = 0
        for _ in 0..<4_000 {
            let roll = generator.next() % 10
            if roll < 5 || running.isEmpty {
                nextID += 1
                let host = "host-\(generator.next() % 40)"
                let priority = RequestPriority.allCases[Int(generator.next() % 3)]
                hosts[nextID] = host
                let startsNow = state.arrive(id: nextID, host: host, priority: priority)
                #expect(startsNow == model.arrive(id: nextID, host: host, priority: priority))
                if startsNow { running.append(host) }
            } else if roll < 8 {
                let host = running.remove(at: Int(generator.next() % UInt64(running.count)))
                let started = state.finish(host: host)
                #expect(Array(started) == model.finish(host: host))
                running += started.map { hosts[$0]! }
            } else if roll < 9 {
                let id = generator.next() % (nextID + 1)
                #expect(state.cancel(id: id) == model.cancel(id: id))
            } else {
                let id = generator.next() % (nextID + 1)
                let priority = RequestPriority.allCases[Int(generator.next() % 3)]
                state.changePriority(id: id, to: priority)
                model.changePriority(id: id, to: priority)
            }
            #expect(state.running == model.running)
            #expect(state.waitingCount == model.waiting.count)
        }
        #expect(state.waiting == model.waiting)
        #expect(state.runningPerHost == model.runningPerHost.filter { $0.value > 0 })
    }

    @Test func aFIFOKeepsItsOrderAcrossCompactions() {
        var queue = FIFO<Int>()
        var expected = 0
        var next = 0
        for round in 0..<2_000 {
            for _ in 0..<(round % 7) {
                queue.append(next)
                next += 1
            }
            for _ in 0..<(round % 5) {
                guard let value = queue.popFirst() else { break }
                #expect(value == expected)
                expected += 1
            }
        }
        queue.filter { $0.isMultiple(of: 2) }
        let rest = Array(sequence(state: queue) { $0.popFirst() })
        #expect(rest == Array(expected..<next).filter { $0.isMultiple(of: 2) })
        #expect(!rest.isEmpty)
        while queue.popFirst() != nil {}
        #expect(queue.isEmpty && queue.first == nil)
    }
}
