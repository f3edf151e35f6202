import NIOCore
import Testing

@testable import Courier

@Suite("Early end: the parts a delegate has not received")
struct EarlyEndTests {
    private func part(_ byte: UInt8, count: Int) -> ByteBuffer {
        ByteBuffer(repeating: byte, count: count)
    }

    @Test("what was received and not delivered comes back in order, cut where the delegate stopped, once")
    func undeliveredParts() {
        let watch = EarlyEnd()
        watch.received(part(1, count: 4))
        watch.received(part(2, count: 6))
        watch.received(part(3, count: 5))
        watch.delivered(4)
        // Delivered counts need not fall on part boundaries.
        watch.delivered(2)
        let rest = watch.undelivered()
        #expect(rest.map(\.readableBytes) == [4, 5])
        #expect(rest.map { $0.getInteger(at: $0.readerIndex, as: UInt8.self) } == [2, 3])
        #expect(watch.undelivered().isEmpty)
    }

    @Test("parts the delegate has all of are forgotten; nothing is left once it has everything")
    func deliveredPartsAreForgotten() {
        let watch = EarlyEnd()
        for index in 0..<100 {
            watch.received(part(UInt8(index), count: 10))
            watch.delivered(10)
        }
        #expect(watch.undelivered().isEmpty)
        // Deliveries of parts that were never kept (an exchange the tap could not name) do not
        // eat into parts kept later.
        watch.delivered(7)
        watch.received(part(9, count: 3))
        #expect(watch.undelivered().map(\.readableBytes) == [3])
    }
}
