import Courier
import CourierQueue
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Pausing a queue, as an app does when it moves to the background, and resuming it.
@Suite("Durable queue: pause and resume")
struct DurableQueuePauseTests {
    private func withServerAndQueue(_ body: (TestServer, DurableQueue) async throws -> Void) async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                try await withQueue(path: path) { queue in try await body(server, queue) }
            }
        }
    }

    @Test func aPausedQueueWritesButStartsNothingUntilResumed() async throws {
        try await withServerAndQueue { server, queue in
            await queue.pause()
            #expect(await queue.isPaused)
            let handle = try await queue.enqueue(CourierRequest<Void>(method: .post, path: server.url("/idempotent/paused").absoluteString, body: .text("p")))
            let first = try await handle.firstAttempt()
            #expect(first.state == .pending && first.attempts == 0)
            // The network coming back plans a round, which a paused queue does not run: a
            // running queue would have claimed the record before this call returned.
            await queue.networkIsBack()
            let waiting = try #require(try await queue.record(id: handle.id))
            #expect(waiting.state == .pending && waiting.attempts == 0)
            #expect(server.ledger.entries.isEmpty)
            await queue.resume()
            #expect(!(await queue.isPaused))
            #expect(try await handle.outcome().state == .delivered)
            #expect(server.ledger.entries.count == 1)
        }
    }

    @Test func pausingWaitsForTheDeliveriesUnderWay() async throws {
        try await withServerAndQueue { server, queue in
            let handle = try await queue.enqueue(CourierRequest<Void>(method: .post, path: server.url("/gate/pause").absoluteString, body: .text("g")))
            try await Self.waitForRequest(at: "pause", on: server)
            let returned = NIOLockedValueBox(false)
            let pausing = Task {
                await queue.pause()
                returned.withLockedValue { $0 = true }
            }
            for _ in 0..<3000 where !(await queue.isPaused) {
                try await Task.sleep(for: .milliseconds(10))
            }
            // The response is held at the gate: the pause cannot have ended.
            #expect(!returned.withLockedValue { $0 })
            server.openGate("pause")
            await pausing.value
            let settled = try #require(try await queue.record(id: handle.id))
            #expect(settled.state == .delivered)
        }
    }

    /// A pause that waits while the queue is resumed does not wait for what the resumed queue
    /// starts.
    @Test(.timeLimit(.minutes(2)))
    func aPauseOvertakenByResumeStopsWaiting() async throws {
        try await withServerAndQueue { server, queue in
            _ = try await queue.enqueue(CourierRequest<Void>(method: .post, path: server.url("/gate/first").absoluteString, body: .text("1")))
            try await Self.waitForRequest(at: "first", on: server)
            let pausing = Task { await queue.pause() }
            for _ in 0..<3000 where !(await queue.isPaused) {
                try await Task.sleep(for: .milliseconds(10))
            }
            await queue.resume()
            // Unordered: it need not wait for the first, which is still held.
            let second = try await queue.enqueue(
                CourierRequest<Void>(method: .post, path: server.url("/gate/second").absoluteString, body: .text("2")), isOrdered: false
            )
            try await Self.waitForRequest(at: "second", on: server)
            server.openGate("first")
            // Returns with the second request still held at its gate.
            await pausing.value
            #expect(try await queue.record(id: second.id)?.state == .inFlight)
            server.openGate("second")
            #expect(try await second.outcome().state == .delivered)
        }
    }

    /// Waits, at most 30 seconds, until a request waits at the gate `name`.
    private static func waitForRequest(at name: String, on server: TestServer) async throws {
        for _ in 0..<3000 where server.requestsWaiting(atGate: name) == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(server.requestsWaiting(atGate: name) == 1)
    }

    @Test func runResumesAPausedQueueAndDeliversWhatWaits() async throws {
        try await withServerAndQueue { server, queue in
            await queue.pause()
            for index in 0..<3 {
                let request = CourierRequest<Void>(method: .post, path: server.url("/idempotent/run-\(index)").absoluteString, body: .text("\(index)"))
                _ = try await queue.enqueue(request)
            }
            #expect(try await queue.run(deadline: .seconds(60)))
            #expect(!(await queue.isPaused))
            #expect(server.ledger.entries.count == 3)
        }
    }

    @Test func pauseAndResumeAfterCloseDoNothing() async throws {
        try await withQueueFolder { path in
            try await withQueue(path: path) { queue in
                await queue.close()
                await queue.pause()
                #expect(!(await queue.isPaused))
                await queue.resume()
                await #expect(throws: CourierError.self) { try await queue.run() }
            }
        }
    }
}
