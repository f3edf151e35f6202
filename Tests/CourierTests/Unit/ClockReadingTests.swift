import Foundation
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

    @Test(arguments: [Duration.zero, .milliseconds(1), .seconds(-30), .seconds(3600)])
    func aReadingPlusADurationIsTheInstantPlusIt(_ duration: Duration) {
        let instant = ContinuousClock.now - .seconds(1)
        #expect((ClockReading(instant) + duration).instant == instant + duration)
        #expect((ClockReading(instant) + duration) - ClockReading(instant) == duration)
    }

    @Test func aTimingEndsOnceAndStartsWhereItIsTold() {
        var timing = Timing(start: ContinuousClock.now - .seconds(1))
        let end = ContinuousClock.now - .milliseconds(500)
        timing.end = end
        timing.endIfOpen()
        #expect(timing.end == end)
        timing.end = nil
        timing.endIfOpen()
        #expect(timing.end.map { $0 > end } == true)
        let start = ContinuousClock.now - .seconds(9)
        let date = Date(timeIntervalSince1970: 1_000)
        timing.setStart(ClockReading(start), date: date)
        #expect(timing.start == start && timing.startDate == date)
    }

    @Test func aRequestsCallDeadlineIsItsTimeoutFromTheCallsStart() throws {
        let start = ContinuousClock.now - .seconds(2)
        var request = CourierHTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1/")))
        request.startCall(at: ClockReading(start))
        #expect(request.callDeadline == nil)
        request.timeout = .seconds(7)
        request.startCall(at: ClockReading(start))
        #expect(request.callDeadline == start + .seconds(7))
    }

    @Test func aHopEndsByTheCallsDeadlineOrSoonerWhenTheTimeoutWasShortened() throws {
        var request = CourierHTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1/")))
        #expect(request.hopDeadline == nil)
        let deadline = ContinuousClock.now + .seconds(30)
        request.callDeadline = deadline
        #expect(request.hopDeadline?.instant == deadline)
        // A timeout longer than what is left keeps the call's deadline.
        request.timeout = .seconds(600)
        #expect(request.hopDeadline?.instant == deadline)
        // A shorter one counts from now.
        request.timeout = .seconds(1)
        let before = ContinuousClock.now
        let shortened = try #require(request.hopDeadline?.instant)
        #expect(shortened >= before + .seconds(1) && shortened < deadline)
        // With no deadline yet, the timeout from now.
        request.callDeadline = nil
        #expect(try #require(request.hopDeadline?.instant) >= before + .seconds(1))
    }
}
