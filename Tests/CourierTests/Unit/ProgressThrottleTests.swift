import NIOConcurrencyHelpers
import Testing

@testable import Courier

@Suite("Upload progress throttling")
struct ProgressThrottleTests {
    private let start = ContinuousClock.now

    private func progress(_ bytes: Int64, of total: Int64? = 1000) -> TransferProgress {
        TransferProgress(completedBytes: bytes, totalBytes: total)
    }

    /// Feeds `steps` (bytes, time since the start, whether it ends the transfer) to a new
    /// throttle and returns which passed.
    private func admitted(_ steps: [(Int64, Duration, Bool)], total: Int64? = 1000) -> [Bool] {
        var throttle = ProgressThrottle()
        return steps.map { bytes, time, isFinal in
            throttle.admits(progress(bytes, of: total), at: start + time, isFinal: isFinal)
        }
    }

    @Test("the first value passes, then only after 100 ms or 1 % of the total, and the last always")
    func rules() {
        let steps: [(Int64, Duration, Bool)] = [
            (0, .zero, false),  // the first value
            (5, .milliseconds(10), false),  // 0.5 % after 10 ms: held back
            (10, .milliseconds(20), false),  // 1 % of the total
            (15, .milliseconds(99), false),
            (16, .milliseconds(120), false),  // 100 ms since the last value
            (16, .seconds(5), false),  // no new bytes
            (1000, .milliseconds(121), false),  // the last value
        ]
        #expect(admitted(steps) == [true, false, true, false, true, false, true])
    }

    @Test("with an unknown total only time lets values through, and the end of the transfer")
    func unknownTotal() {
        let steps: [(Int64, Duration, Bool)] = [
            (0, .zero, false),
            (1_000_000, .milliseconds(50), false),
            (2_000_000, .milliseconds(100), false),
            (2_000_001, .milliseconds(101), true),
        ]
        #expect(admitted(steps, total: nil) == [true, false, true, true])
    }

    @Test("a 2 GiB upload in 64 KiB chunks, one every 10 µs, gives about a hundred values, not thirty thousand")
    func largeBody() {
        var throttle = ProgressThrottle()
        let total: Int64 = 2 << 30
        let chunk: Int64 = 64 * 1024
        var admitted: [Int64] = []
        if throttle.admits(progress(0, of: total), at: start) { admitted.append(0) }
        var sent: Int64 = 0
        var chunks = 0
        while sent < total {
            sent = min(total, sent + chunk)
            chunks += 1
            if throttle.admits(progress(sent, of: total), at: start + .microseconds(10 * chunks)) { admitted.append(sent) }
        }
        #expect(chunks == 32768)
        #expect(admitted.count <= 102)
        #expect(admitted.count >= 100)
        #expect(admitted.last == total)
        #expect(admitted == admitted.sorted())
    }

    @Test("the reporter calls back and feeds every sequence the same values, ending them when the request ends")
    func reporter() async {
        let clock = NIOLockedValueBox(start)
        let calls = NIOLockedValueBox<[TransferProgress]>([])
        let reporter = ProgressReporter(callback: { value in calls.withLockedValue { $0.append(value) } }, now: { clock.withLockedValue { $0 } })
        let early = reporter.updates()
        reporter.begin(total: 300)
        reporter.advance(by: 1)
        clock.withLockedValue { $0 += .milliseconds(200) }
        reporter.advance(by: 100)
        reporter.advance(by: 2)
        reporter.advance(by: 1)
        let late = reporter.updates()
        reporter.advance(by: 196)
        reporter.end()
        reporter.finish()
        let expected = [progress(0, of: 300), progress(101, of: 300), progress(104, of: 300), progress(300, of: 300)]
        #expect(calls.withLockedValue { $0 } == expected)
        var seenEarly: [TransferProgress] = []
        for await value in early { seenEarly.append(value) }
        #expect(seenEarly == expected)
        var seenLate: [TransferProgress] = []
        for await value in late { seenLate.append(value) }
        #expect(seenLate == Array(expected.dropFirst(2)), "the latest value first, then the new ones")
        var afterwards: [TransferProgress] = []
        for await value in reporter.updates() { afterwards.append(value) }
        #expect(afterwards == [progress(300, of: 300)])
    }

    @Test("a request that succeeded ends its body's progress complete, and later reports are dropped")
    func lateReportOfTheLastBytes() async {
        let calls = NIOLockedValueBox<[TransferProgress]>([])
        let reporter = ProgressReporter(callback: { value in calls.withLockedValue { $0.append(value) } })
        let updates = reporter.updates()
        reporter.begin(total: 300)
        reporter.advance(by: 252)
        // The response arrived before the task that wrote the last 48 bytes reported them.
        reporter.finish(succeeded: true)
        reporter.advance(by: 48)
        reporter.end()
        let expected = [progress(0, of: 300), progress(252, of: 300), progress(300, of: 300)]
        #expect(calls.withLockedValue { $0 } == expected)
        var seen: [TransferProgress] = []
        for await value in updates { seen.append(value) }
        #expect(seen == expected)
    }

    @Test("bytes a transport counted on its own are not counted again as the client copies them, and never go backwards")
    func bytesCountedElsewhereAreNotCountedAgain() {
        let calls = NIOLockedValueBox<[TransferProgress]>([])
        let clock = NIOLockedValueBox(ContinuousClock.now)
        let reporter = ProgressReporter(callback: { value in calls.withLockedValue { $0.append(value) } }, now: { clock.withLockedValue { $0 } })
        reporter.received(100, of: nil)
        clock.withLockedValue { $0 += .milliseconds(200) }
        reporter.received(250, of: nil)
        clock.withLockedValue { $0 += .milliseconds(200) }
        // A smaller count, as from a hop that starts again, moves nothing.
        reporter.received(40, of: nil)
        // The client copies the 300 bytes the transport wrote to a file of its own.
        reporter.begin(total: 300)
        clock.withLockedValue { $0 += .milliseconds(200) }
        reporter.advance(by: 200)
        clock.withLockedValue { $0 += .milliseconds(200) }
        reporter.advance(by: 80)
        reporter.advance(by: 20)
        reporter.end()
        reporter.finish(succeeded: true)
        #expect(calls.withLockedValue { $0 } == [progress(100, of: nil), progress(250, of: nil), progress(280, of: 300), progress(300, of: 300)])
    }

    @Test("a failed request's progress stays where it was")
    func failedRequestKeepsItsProgress() async {
        let reporter = ProgressReporter()
        let updates = reporter.updates()
        reporter.begin(total: 300)
        reporter.advance(by: 252)
        reporter.finish()
        var seen: [TransferProgress] = []
        for await value in updates { seen.append(value) }
        #expect(seen == [progress(0, of: 300), progress(252, of: 300)])
    }

    @Test("fraction completed, completeness and description")
    func values() {
        #expect(progress(250).fractionCompleted == 0.25)
        #expect(progress(0, of: 0).fractionCompleted == 1)
        #expect(progress(5, of: nil).fractionCompleted == nil)
        #expect(progress(1000).isComplete && !progress(999).isComplete && !progress(5, of: nil).isComplete)
        #expect(progress(1, of: 2).description == "1 of 2 bytes")
    }
}
