import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import Courier

/// The read-timeout watchdog on a clock the tests move by hand: a 10-second timeout, so that
/// its own ticks (one a second) never decide anything before the test's own checks do.
@Suite("Read watchdog")
struct ReadWatchdogTests {
    let time = NIOLockedValueBox<UInt64>(1_000_000_000)
    let watchdog: ReadWatchdog

    init() {
        let time = self.time
        watchdog = ReadWatchdog(loop: MultiThreadedEventLoopGroup.singleton.next(), clock: .init { time.withLockedValue { $0 } })
    }

    func advance(_ seconds: Double) {
        time.withLockedValue { $0 += UInt64(seconds * 1e9) }
    }

    /// Moves the clock on by `seconds`, then lets the watchdog look.
    func check(after seconds: Double) {
        advance(seconds)
        watchdog.check()
    }

    /// Starts watching a new exchange that may stay silent for `timeout`; the returned box
    /// counts how often it was failed.
    func watched(timeout: Duration = .seconds(10)) -> (ReadWatchdog.Watch, NIOLockedValueBox<Int>) {
        let watch = watchdog.makeWatch(timeout: timeout)
        let failures = NIOLockedValueBox(0)
        watchdog.start(watch) { failures.withLockedValue { $0 += 1 } }
        return (watch, failures)
    }

    @Test func eachExchangeIsHeldToItsOwnTimeout() {
        let (short, shortFailures) = watched(timeout: .seconds(2))
        let (long, longFailures) = watched(timeout: .seconds(10))
        short.requestSent()
        long.requestSent()
        check(after: 3)
        #expect(shortFailures.withLockedValue { $0 } == 1)
        #expect(longFailures.withLockedValue { $0 } == 0)
        check(after: 8)
        #expect(longFailures.withLockedValue { $0 } == 1)
    }

    @Test func aSilentExchangeFailsOnceAtTheTimeout() {
        let (watch, failures) = watched()
        watch.requestSent()
        check(after: 9.9)
        #expect(failures.withLockedValue { $0 } == 0)
        check(after: 0.1)
        #expect(failures.withLockedValue { $0 } == 1)
        // A failed exchange is no longer watched.
        check(after: 30)
        #expect(failures.withLockedValue { $0 } == 1)
    }

    @Test func theClockDoesNotRunBeforeTheRequestIsSent() {
        let (watch, failures) = watched()
        watch.heard()  // an early part of the response does not start it either
        check(after: 60)
        #expect(failures.withLockedValue { $0 } == 0)
        watch.requestSent()
        check(after: 10)
        #expect(failures.withLockedValue { $0 } == 1)
    }

    @Test func eachPartOfTheResponseRestartsTheClock() {
        let (watch, failures) = watched()
        watch.requestSent()
        for _ in 0..<10 {  // 90 seconds in all, never 10 of silence
            advance(9)
            watch.heard()
            watchdog.check()
        }
        #expect(failures.withLockedValue { $0 } == 0)
        check(after: 10)
        #expect(failures.withLockedValue { $0 } == 1)
    }

    @Test func aPausedClockNeverExpiresAndRunsAgainOnResume() {
        let (watch, failures) = watched()
        watch.requestSent()
        advance(5)
        watch.pause()
        check(after: 60)
        watch.heard()  // nothing arrives while paused, and a stray part does not restart it
        check(after: 60)
        #expect(failures.withLockedValue { $0 } == 0)
        watch.resume()  // a full timeout again from here
        check(after: 9.9)
        #expect(failures.withLockedValue { $0 } == 0)
        check(after: 0.1)
        #expect(failures.withLockedValue { $0 } == 1)
    }

    @Test func resumingBeforeTheRequestIsSentDoesNotStartTheClock() {
        let (watch, failures) = watched()
        watch.pause()
        watch.resume()
        check(after: 60)
        #expect(failures.withLockedValue { $0 } == 0)
    }

    @Test func anEndedExchangeIsNeverFailed() {
        let (watch, failures) = watched()
        watch.requestSent()
        watchdog.end(watch)
        check(after: 60)
        #expect(failures.withLockedValue { $0 } == 0)
    }

    @Test func onlyTheSilentExchangeOfSeveralFails() {
        let (quiet, quietFailures) = watched()
        let (busy, busyFailures) = watched()
        quiet.requestSent()
        busy.requestSent()
        advance(6)
        busy.heard()
        check(after: 6)
        #expect(quietFailures.withLockedValue { $0 } == 1)
        #expect(busyFailures.withLockedValue { $0 } == 0)
    }
}

/// The watchdog's own ticks on the real clock.
@Suite("Read watchdog ticks")
struct ReadWatchdogTickTests {
    @Test func ticksFailASilentExchangeAndStartAgainAfterFallingIdle() async {
        let watchdog = ReadWatchdog(loop: MultiThreadedEventLoopGroup.singleton.next())
        let first = watchdog.makeWatch(timeout: .milliseconds(50))
        let failures = NIOLockedValueBox(0)
        watchdog.start(first) { failures.withLockedValue { $0 += 1 } }
        first.requestSent()
        #expect(await eventually { failures.withLockedValue { $0 } == 1 })
        // Nothing is watched now, so the ticks stop; a new exchange starts them again.
        try? await Task.sleep(for: .milliseconds(100))
        let second = watchdog.makeWatch(timeout: .milliseconds(50))
        watchdog.start(second) { failures.withLockedValue { $0 += 1 } }
        second.requestSent()
        #expect(await eventually { failures.withLockedValue { $0 } == 2 })
    }

    /// A loop held up so long that every tick runs late: a late tick may wait for what the loop
    /// has not read yet, but not for ever, or a busy process would never enforce a read timeout.
    @Test func aLoopThatIsLateOnEveryTickStillFailsASilentExchange() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let watchdog = ReadWatchdog(loop: loop)
        let watch = watchdog.makeWatch(timeout: .milliseconds(50))  // ticks every 5 ms
        // Each task holds the loop for 30 ms, six ticks, and queues the next, 330 times at most
        // (10 s): the exchange must fail while the loop is still held up.
        let blocks = NIOLockedValueBox(0)
        let failedAfterBlocks = NIOLockedValueBox<Int?>(nil)
        watchdog.start(watch) { failedAfterBlocks.withLockedValue { $0 = blocks.withLockedValue { $0 } } }
        watch.requestSent()
        @Sendable func holdUp() {
            usleep(30_000)
            let goesOn = blocks.withLockedValue { blocks in
                blocks += 1
                return blocks < 330
            }
            if goesOn && failedAfterBlocks.withLockedValue({ $0 }) == nil {
                loop.scheduleTask(in: .milliseconds(1)) { holdUp() }
            }
        }
        loop.execute { holdUp() }
        #expect(await eventually(attempts: 600) { failedAfterBlocks.withLockedValue { $0 } != nil })
        #expect((failedAfterBlocks.withLockedValue { $0 } ?? .max) < 330)
        try await group.shutdownGracefully()
    }
}
