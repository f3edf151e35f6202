import Testing

@testable import Courier

@Suite("Clock reading")
struct ClockReadingTests {
    @Test(arguments: [Duration.zero, .nanoseconds(1), .seconds(-3600), .seconds(86_400 * 365)])
    func aReadingGivesBackTheInstantItWasTakenFrom(_ offset: Duration) {
        let instant = ContinuousClock.now + offset
        #expect(ClockReading(instant).instant == instant)
    }

    @Test func readingsOrderAsTheirInstantsDo() {
        let now = ContinuousClock.now
        let earlier = ClockReading(now - .milliseconds(5))
        let later = ClockReading(now + .milliseconds(5))
        #expect(earlier < later)
        #expect(!(later < earlier))
        #expect(ClockReading(now) == ClockReading(now))
        #expect(Optional<ClockReading>.none.instant == nil)
    }

    @Test func aTimingKeepsWhatItIsGiven() {
        let start = ContinuousClock.now - .seconds(2)
        var timing = Timing(start: start)
        timing.firstByte = start + .milliseconds(30)
        timing.end = start + .milliseconds(45)
        #expect(timing.start == start)
        #expect(timing.timeToFirstByte == .milliseconds(30))
        #expect(timing.duration == .milliseconds(45))
        timing.end = nil
        #expect(timing.end == nil && timing.duration == nil)
        var same = Timing(startDate: timing.startDate, start: start)
        same.firstByte = start + .milliseconds(30)
        #expect(same == timing)
    }
}
