import NIOConcurrencyHelpers
import Testing

@testable import Courier

@Suite("Cancel slot")
struct CancelSlotTests {
    final class Started: Cancellable {
        let cancellations = NIOLockedValueBox(0)
        func cancel() { cancellations.withLockedValue { $0 += 1 } }
        var cancelled: Int { cancellations.withLockedValue { $0 } }
    }

    @Test func aCancellationAfterTheTaskExistsCancelsIt() {
        let slot = CancelSlot<Started>()
        let task = Started()
        slot.fill(task)
        #expect(task.cancelled == 0)
        slot.cancel()
        #expect(task.cancelled == 1)
    }

    @Test func aCancellationBeforeTheTaskExistsCancelsItWhenItArrives() {
        let slot = CancelSlot<Started>()
        slot.cancel()
        let task = Started()
        slot.fill(task)
        #expect(task.cancelled == 1)
        // A later cancellation does not cancel it a second time.
        slot.cancel()
        #expect(task.cancelled == 1)
    }

    @Test func aTaskNobodyCancelsIsLeftAlone() {
        let slot = CancelSlot<Started>()
        let task = Started()
        slot.fill(task)
        #expect(task.cancelled == 0)
    }
}
