import Courier
import Foundation
import PropertyBased
import Testing

@testable import CourierServerSentEvents

@Suite("Server-Sent Events: the parsing rules of the WHATWG standard")
struct EventParserTests {
    typealias Event = EventStream.Event

    /// The events `text` makes when parsed whole, and the parser afterwards.
    static func parse(_ text: String, lastEventID: String = "", limit: Int = 1 << 20) throws -> ([Event], EventParser) {
        try parse(Data(text.utf8), lastEventID: lastEventID, limit: limit)
    }

    static func parse(_ bytes: Data, lastEventID: String = "", limit: Int = 1 << 20) throws -> ([Event], EventParser) {
        var parser = EventParser(lastEventID: lastEventID, maximumEventSize: limit)
        let events = try parser.parse(bytes)
        return (events, parser)
    }

    @Test("data fields are joined by line feeds; the type is message unless an event field names one")
    func dataAndTypes() throws {
        let (events, _) = try Self.parse("data: first\ndata:second\ndata\n\nevent: add\ndata: 1\n\nevent:\ndata: plain\n\n")
        #expect(events == [Event(data: "first\nsecond\n"), Event(type: "add", data: "1"), Event(data: "plain")])
    }

    @Test("one space after the colon is dropped, not two; a line without a colon is a field with no value")
    func valuesAndColons() throws {
        let (events, _) = try Self.parse("data:  two spaces\n\ndata\n\ndata: a:b\n\n")
        #expect(events == [Event(data: " two spaces"), Event(data: ""), Event(data: "a:b")])
    }

    @Test("comments, unknown fields and an empty line without data dispatch nothing")
    func nothingToDispatch() throws {
        let (events, _) = try Self.parse(": heartbeat\n\nfoo: bar\n\nevent: lonely\n\n\n\ndata: after\n\n")
        // The type of an event without data does not carry over to the next one.
        #expect(events == [Event(data: "after")])
    }

    @Test("CR, LF and CR LF all end lines, mixed in one stream")
    func lineEnds() throws {
        let (events, _) = try Self.parse("data: a\r\rdata: b\r\n\r\ndata: c\n\ndata: d\r\ndata: e\n\r\n")
        #expect(events.map(\.data) == ["a", "b", "c", "d\ne"])
    }

    @Test("a byte-order mark is dropped at the start of the stream only")
    func byteOrderMark() throws {
        let (events, _) = try Self.parse("\u{FEFF}data: a\n\n\u{FEFF}data: b\n\ndata: c\n\n")
        // The second mark starts a line whose field is "\u{FEFF}data": an unknown field.
        #expect(events.map(\.data) == ["a", "c"])
        let (marked, _) = try Self.parse("\u{FEFF}\n\u{FEFF}data: x\n\n")
        #expect(marked.isEmpty)
    }

    @Test("the last event id carries over to later events, an empty id clears it, an id with NUL is ignored")
    func ids() throws {
        let (events, parser) = try Self.parse("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 4\u{0}x\ndata: d\n\nid: 5\n\n")
        #expect(events == [Event(data: "a", id: "1"), Event(data: "b", id: "1"), Event(data: "c"), Event(data: "d")])
        // An id without data still sets the last event id, which a reconnection sends.
        #expect(parser.lastEventID == "5")
        let (resumed, _) = try Self.parse("data: x\n\n", lastEventID: "41")
        #expect(resumed == [Event(data: "x", id: "41")])
    }

    @Test("retry takes ASCII digits only, and saturates instead of overflowing")
    func retry() throws {
        #expect(try Self.parse("retry: 2500\n\n").1.reconnectionTime == .milliseconds(2500))
        #expect(try Self.parse("retry: 2500\nretry: 1x\nretry: -1\nretry: 1.5\nretry:\n\n").1.reconnectionTime == .milliseconds(2500))
        #expect(try Self.parse("retry: 0\n").1.reconnectionTime == .zero)
        let huge = try Self.parse("retry: \(String(repeating: "9", count: 60))\n").1.reconnectionTime
        #expect(huge == .milliseconds(1_000_000_000_000))
    }

    @Test("an event the stream ends in the middle of is not dispatched, and its id is not taken")
    func unfinishedEvent() throws {
        let (events, parser) = try Self.parse("id: 1\ndata: whole\n\nid: 2\ndata: half")
        #expect(events == [Event(data: "whole", id: "1")])
        #expect(parser.lastEventID == "1")
    }

    @Test("bytes that are not UTF-8 become U+FFFD; other scripts pass as they are")
    func decoding() throws {
        var bytes = Data("data: a".utf8)
        bytes.append(contentsOf: [0xFF, 0xC3])
        bytes.append(contentsOf: Array("\ndata: é日本\n\n".utf8))
        let (events, _) = try Self.parse(bytes)
        #expect(events.map(\.data) == ["a\u{FFFD}\u{FFFD}\né日本"])
    }

    @Test("an event or a line past the limit is refused, however it is cut")
    func limit() throws {
        let long = "data: " + String(repeating: "x", count: 100)
        let error = #expect(throws: CourierError.self) { try Self.parse(long, limit: 64) }
        #expect(error?.kind == .responseTooLarge)
        // Many short data lines add up.
        var parser = EventParser(maximumEventSize: 64)
        let lines = #expect(throws: CourierError.self) {
            for _ in 0..<20 { _ = try parser.parse(Data("data: 12345\n".utf8)) }
        }
        #expect(lines?.kind == .responseTooLarge)
        // Events that each fit pass, however many.
        var fitting = EventParser(maximumEventSize: 64)
        for _ in 0..<100 { #expect(try fitting.parse(Data("data: 12345\n\n".utf8)).count == 1) }
    }

    static let sample = "\u{FEFF}: hello\r\nretry: 1500\r\n\r\nid: 7\nevent: tick\ndata: {\"n\":7}\r\rdata: two\ndata:lines\n\n: heartbeat\r\ndata: é\u{1F600}\r\n\r\ndata: tail"

    @Test("any cutting of a stream into pieces gives the events of the whole")
    func cutsAnywhere() async throws {
        let bytes = Array(Self.sample.utf8)
        let (whole, wholeParser) = try Self.parse(Data(bytes))
        #expect(whole.count == 3)
        let cuts = Gen<Int>.value(in: 0...bytes.count).array(of: 0...12)
        await propertyCheck(count: Property.cases(1000), input: cuts) { cuts in
            var parser = EventParser(maximumEventSize: 1 << 20)
            var events: [Event] = []
            var start = 0
            for cut in cuts.sorted() + [bytes.count] {
                events += try parser.parse(Data(bytes[start..<cut]))
                start = cut
            }
            #expect(events == whole)
            #expect(parser.lastEventID == wholeParser.lastEventID)
            #expect(parser.reconnectionTime == .milliseconds(1500))
        }
    }

    @Test("an event prints as a server would send it")
    func description() {
        #expect(Event(data: "a\nb").description == "data: a\ndata: b\n\n")
        #expect(Event(type: "tick", data: "1", id: "9").description == "event: tick\nid: 9\ndata: 1\n\n")
    }

    @Test("JSON data decodes; data that does not fit is a decodingFailed error")
    func decode() throws {
        struct Tick: Decodable, Equatable { let n: Int }
        #expect(try Event(data: "{\"n\":3}").decode(Tick.self) == Tick(n: 3))
        let error = #expect(throws: CourierError.self) { try Event(type: "tick", data: "{\"n\":\"x\"}").decode(Tick.self) }
        #expect(error?.kind == .decodingFailed)
    }
}

@Suite("Server-Sent Events: the waits between connections")
struct ReconnectionScheduleTests {
    @Test("a connection that delivered something is followed after the reconnection time; failures double it up to the maximum")
    func waits() {
        var schedule = ReconnectionSchedule(policy: .init(delay: .seconds(2), maximumDelay: .seconds(10), maximumAttempts: 4))
        #expect(schedule.afterLiveConnection() == .seconds(2))
        #expect(schedule.afterFailedAttempt() == .seconds(2))
        #expect(schedule.afterFailedAttempt() == .seconds(4))
        #expect(schedule.afterFailedAttempt() == .seconds(8))
        #expect(schedule.afterFailedAttempt() == .seconds(10))
        #expect(schedule.afterFailedAttempt() == nil)
    }

    @Test("a live connection starts the count of failures again")
    func liveResets() {
        var schedule = ReconnectionSchedule(policy: .init(delay: .seconds(1), maximumAttempts: 2))
        #expect(schedule.afterFailedAttempt() == .seconds(1))
        #expect(schedule.afterFailedAttempt() == .seconds(2))
        #expect(schedule.afterLiveConnection() == .seconds(1))
        #expect(schedule.afterFailedAttempt() == .seconds(1))
        #expect(schedule.afterFailedAttempt() == .seconds(2))
        #expect(schedule.afterFailedAttempt() == nil)
    }

    @Test("the server's retry replaces the delay, held to the maximum")
    func serverRetry() {
        var schedule = ReconnectionSchedule(policy: .init(delay: .seconds(3), maximumDelay: .seconds(60)))
        schedule.serverSet(.milliseconds(250))
        #expect(schedule.afterLiveConnection() == .milliseconds(250))
        schedule.serverSet(nil)
        #expect(schedule.afterLiveConnection() == .milliseconds(250))
        schedule.serverSet(.seconds(3600))
        #expect(schedule.afterLiveConnection() == .seconds(60))
        var instant = ReconnectionSchedule(policy: .automatic)
        instant.serverSet(.zero)
        #expect(instant.afterFailedAttempt() == .zero)
        #expect(instant.afterFailedAttempt() == .zero)
    }

    @Test("never reconnects, after a live connection or a failure")
    func never() {
        var schedule = ReconnectionSchedule(policy: .never)
        #expect(schedule.afterLiveConnection() == nil)
        #expect(schedule.afterFailedAttempt() == nil)
    }

    @Test("settings outside their range are refused")
    func ranges() {
        #expect(EventStream.Reconnection.automatic.configurationError == nil)
        #expect(EventStream.Reconnection(delay: .seconds(-1)).configurationError?.kind == .invalidConfiguration)
        #expect(EventStream.Reconnection(delay: .seconds(10), maximumDelay: .seconds(5)).configurationError?.kind == .invalidConfiguration)
        #expect(EventStream.Reconnection(maximumDelay: .seconds(100_000)).configurationError?.kind == .invalidConfiguration)
        #expect(EventStream.Reconnection(maximumAttempts: -1).configurationError?.kind == .invalidConfiguration)
    }
}
