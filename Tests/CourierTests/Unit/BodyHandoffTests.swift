import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import Courier

@Suite("Body hand-off")
struct BodyHandoffTests {
    private let piece = 100 * 1024

    private func buffer(_ byte: UInt8, count: Int) -> ByteBuffer {
        ByteBuffer(repeating: byte, count: count)
    }

    @Test("a reader that falls behind takes every waiting piece at once, and the producer waits only past the budget")
    func slowReaderTakesPiecesTogether() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let loop = group.next()
        let handoff = BodyHandoff()
        let underBudget = BodyHandoff.budget / piece
        var futures: [EventLoopFuture<Void>] = []
        for index in 0...underBudget {
            futures.append(handoff.offer(buffer(UInt8(index), count: piece), on: loop))
        }
        // Everything below the budget is accepted at once; the piece that reaches it is held.
        for future in futures.dropLast() { try await future.get() }
        let held = futures.last!
        let heldDone = NIOLockedValueBox(false)
        held.whenSuccess { heldDone.withLockedValue { $0 = true } }
        try await loop.submit {}.get()
        #expect(!heldDone.withLockedValue { $0 })

        let taken = try #require(try await handoff.next())
        #expect(taken.count == underBudget + 1)
        #expect(taken.map { $0.readableBytes }.reduce(0, +) == (underBudget + 1) * piece)
        #expect(taken.map { $0.getInteger(at: $0.readerIndex, as: UInt8.self) } == (0...underBudget).map { UInt8($0) })
        try await held.get()

        handoff.end(.success(()))
        #expect(try await handoff.next() == nil)
    }

    @Test("a reader woken per burst waits through the burst's pieces, then takes them all at once")
    func aReaderWokenPerBurstTakesTheBurstWhole() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let handoff = BodyHandoff(wakesPerBurst: true)
        let reader = Task { try await handoff.next() }
        #expect(await eventually { handoff.readerWaits })
        for byte in UInt8(1)...3 { try await handoff.offer(buffer(byte, count: 10), on: loop).get() }
        // Below the budget, the burst's pieces wait for its end.
        #expect(handoff.readerWaits)
        handoff.burstEnded()
        let taken = try await reader.value
        #expect(taken?.map { $0.getInteger(at: $0.readerIndex, as: UInt8.self) } == [1, 2, 3])
        // Nothing waits: the end of another burst wakes no one, and the end comes next.
        handoff.burstEnded()
        handoff.end(.success(()))
        #expect(try await handoff.next() == nil)
    }

    @Test("pieces that arrived before a failure are delivered before it")
    func piecesBeforeAFailureArriveFirst() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let handoff = BodyHandoff()
        _ = handoff.offer(buffer(1, count: 10), on: group.next())
        _ = handoff.offer(buffer(2, count: 20), on: group.next())
        handoff.end(.failure(ChannelError.eof))
        let taken = try await handoff.next()
        #expect(taken?.map(\.readableBytes) == [10, 20])
        await #expect(throws: ChannelError.self) { try await handoff.next() }
    }

    @Test("the pieces a failure came after, handed over with it, reach the reader in order before it, waiting or not")
    func remainderBeforeTheFailure() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        for readerWaits in [false, true] {
            let handoff = BodyHandoff()
            handoff.receive(HTTPResponseHead(version: .http1_1, status: .ok))
            _ = try await handoff.head()
            _ = handoff.offer(buffer(1, count: 10), on: group.next())
            #expect(try await handoff.next()?.map(\.readableBytes) == [10])
            async let taken = handoff.next()
            if readerWaits { try await Task.sleep(for: .milliseconds(20)) }
            handoff.end(.failure(ChannelError.eof), after: [buffer(2, count: 20), buffer(3, count: 30)])
            let pieces = try await taken
            #expect(pieces?.map(\.readableBytes) == [20, 30])
            #expect(pieces?.map { $0.getInteger(at: $0.readerIndex, as: UInt8.self) } == [2, 3])
            await #expect(throws: ChannelError.self) { try await handoff.next() }
        }
    }

    @Test("a piece reaches the reader whether the reader was already waiting or not")
    func waitingReaderGetsThePiece() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let handoff = BodyHandoff()
        async let taken = handoff.next()
        _ = handoff.offer(buffer(7, count: 5), on: group.next())
        #expect(try await taken?.map(\.readableBytes) == [5])
        handoff.end(.success(()))
        #expect(try await handoff.next() == nil)
    }

    @Test("joined pieces keep their order")
    func joinedPiecesKeepOrder() {
        let data = BodyHandoff.joined([buffer(1, count: 3), buffer(2, count: 2), ByteBuffer(), buffer(3, count: 1)])
        #expect(Array(data) == [1, 1, 1, 2, 2, 3])
    }
}
