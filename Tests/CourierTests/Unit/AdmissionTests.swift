import NIOConcurrencyHelpers
import Testing

@testable import Courier

/// What the starts handed to admissions were called with, in order.
private final class StartLog: Sendable {
    private let entries = NIOLockedValueBox<[String]>([])

    var all: [String] { entries.withLockedValue { $0 } }

    /// A start that logs `name`, or `name` and the kind of error it was refused with.
    func start(_ name: String) -> Admission.Start {
        { refusal in
            let entry = refusal.map { "\(name) refused: \(type(of: $0))" } ?? name
            self.entries.withLockedValue { $0.append(entry) }
        }
    }
}

private struct Expired: Error {}

@Suite("Admission: one exchange's claim on a scheduler slot")
struct AdmissionTests {
    @Test func aFreeSlotStartsAtOnceAndAWaitingStartRunsWhenTheSlotIsGivenBack() {
        let scheduler = Scheduler(globalLimit: 8, perHostLimit: 1)
        let log = StartLog()
        let first = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        let second = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        #expect(!first.arrivedWaiting && second.arrivedWaiting)
        first.start(log.start("first"))
        second.start(log.start("second"))
        #expect(log.all == ["first"])
        #expect(scheduler.activity == Activity(waiting: 1, inFlight: 1))
        first.end(.response(status: 200))
        #expect(log.all == ["first", "second"])
        #expect(scheduler.activity == Activity(waiting: 0, inFlight: 1))
        second.end(.response(status: 200))
        #expect(scheduler.activity == Activity(waiting: 0, inFlight: 0))
    }

    @Test func aSlotGrantedBeforeTheStartIsHandedOverStartsItAtOnce() {
        let scheduler = Scheduler(globalLimit: 8, perHostLimit: 1)
        let log = StartLog()
        let first = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        let second = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        first.end(.inconclusive)
        #expect(log.all.isEmpty)
        second.start(log.start("second"))
        #expect(log.all == ["second"])
        #expect(scheduler.activity == Activity(waiting: 0, inFlight: 1))
    }

    @Test func onlyTheFirstEndGivesTheSlotBack() {
        let scheduler = Scheduler(globalLimit: 8, perHostLimit: 1)
        let log = StartLog()
        let first = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        let second = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        let third = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        second.start(log.start("second"))
        third.start(log.start("third"))
        // The transport gives the slot back when the response is complete, the hop loop again
        // when the hop ends: the second call must not free a slot for the third request.
        first.end(.response(status: 200))
        first.end(.response(status: 200))
        #expect(log.all == ["second"])
        #expect(scheduler.activity == Activity(waiting: 1, inFlight: 1))
    }

    @Test func aWithdrawnAdmissionRefusesItsStartAndTakesNoSlot() {
        let scheduler = Scheduler(globalLimit: 8, perHostLimit: 1)
        let log = StartLog()
        let first = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        let handedOver = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        let notYetHandedOver = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        let last = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        handedOver.start(log.start("handed over"))
        handedOver.withdraw(with: CancellationError())
        // A withdrawal that comes before the start is kept for it.
        notYetHandedOver.withdraw(with: Expired())
        notYetHandedOver.start(log.start("not yet handed over"))
        #expect(log.all == ["handed over refused: CancellationError", "not yet handed over refused: Expired"])
        #expect(scheduler.activity == Activity(waiting: 1, inFlight: 1))
        // Ending a withdrawn admission gives nothing back: the slot is still the first one's.
        handedOver.end(.inconclusive)
        notYetHandedOver.end(.inconclusive)
        #expect(scheduler.activity == Activity(waiting: 1, inFlight: 1))
        last.start(log.start("last"))
        first.end(.response(status: 200))
        #expect(log.all.last == "last")
        #expect(scheduler.activity == Activity(waiting: 0, inFlight: 1))
    }

    @Test func aWithdrawalOnceGrantedChangesNothing() {
        let scheduler = Scheduler(globalLimit: 8, perHostLimit: 1)
        let log = StartLog()
        let only = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        only.withdraw(with: CancellationError())
        only.start(log.start("only"))
        #expect(log.all == ["only"])
        #expect(scheduler.activity == Activity(waiting: 0, inFlight: 1))
    }

    @Test func anAdmissionThatEndsWhileWaitingLeavesTheLine() {
        let scheduler = Scheduler(globalLimit: 8, perHostLimit: 1)
        let log = StartLog()
        let first = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        // Its exchange failed before it handed its start over.
        let failed = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        let next = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        failed.end(.inconclusive)
        #expect(scheduler.activity == Activity(waiting: 1, inFlight: 1))
        next.start(log.start("next"))
        first.end(.response(status: 200))
        #expect(log.all == ["next"])
        #expect(scheduler.activity == Activity(waiting: 0, inFlight: 1))
    }

    @Test func waitingStartsRunInPriorityOrderAndPriorityCanChangeWhileWaiting() {
        let scheduler = Scheduler(globalLimit: 8, perHostLimit: 1)
        let log = StartLog()
        let blocker = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        var admissions: [Admission] = []
        let raised = CourierRequestID()
        for (name, priority, id) in [
            ("low", RequestPriority.low, CourierRequestID()), ("high", .high, CourierRequestID()), ("raised", .low, raised),
        ] {
            let admission = scheduler.admit(host: "a", priority: priority, request: id)
            admission.start(log.start(name))
            admissions.append(admission)
        }
        scheduler.changePriority(of: raised, to: .high)
        // Each exchange gives its slot back as soon as it has started.
        blocker.end(.response(status: 200))
        admissions[1].end(.response(status: 200))
        admissions[2].end(.response(status: 200))
        admissions[0].end(.response(status: 200))
        // Raised to high, it waits behind the request that was high already.
        #expect(log.all == ["high", "raised", "low"])
        #expect(scheduler.activity == Activity(waiting: 0, inFlight: 0))
    }

    @Test func waitingForTheSlotEndsWithItsWithdrawal() async {
        let scheduler = Scheduler(globalLimit: 8, perHostLimit: 1)
        let holder = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        let waiting = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        let expiry = scheduler.expire(waiting, at: .now + .milliseconds(20)) { Expired() }
        await #expect(throws: Expired.self) { try await waiting.wait() }
        expiry.cancel()
        #expect(scheduler.activity == Activity(waiting: 0, inFlight: 1))
        holder.end(.response(status: 200))
        #expect(scheduler.activity == Activity(waiting: 0, inFlight: 0))
    }

    @Test func aCancelledWaitLeavesTheLine() async {
        let scheduler = Scheduler(globalLimit: 8, perHostLimit: 1)
        let holder = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        let waiting = scheduler.admit(host: "a", priority: .default, request: CourierRequestID())
        let task = Task { try await waiting.wait() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(scheduler.activity == Activity(waiting: 0, inFlight: 1))
        holder.end(.response(status: 200))
    }
}
