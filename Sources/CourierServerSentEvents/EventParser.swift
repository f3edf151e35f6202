import Courier
import Foundation

/// Turns the bytes of one `text/event-stream` response into events, by the parsing rules of the
/// WHATWG HTML standard (§9.2.6, "Interpreting an event stream").
///
/// A pure state machine: bytes go in, in pieces of any size, and the events they complete come
/// out. Lines end with CR, LF or CR LF, wherever the pieces are cut; one byte-order mark at the
/// start of the stream is dropped; bytes that are not UTF-8 become U+FFFD. An event is
/// dispatched at an empty line, so the end of a stream in the middle of an event drops that
/// event, as the standard says.
///
/// The parser holds at most ``maximumEventSize`` bytes of an unfinished line and an
/// unfinished event's data together; a server that sends more without finishing the event is
/// refused, so an endless line cannot exhaust memory.
struct EventParser {
    /// The id of the last event dispatched (the standard's "last event ID string"): what a
    /// reconnection sends as `Last-Event-ID`; empty for none.
    private(set) var lastEventID: String
    /// The reconnection time the last valid `retry` field set, or `nil` if none came.
    private(set) var reconnectionTime: Duration?
    /// The largest unfinished line and event data held, in bytes.
    let maximumEventSize: Int

    private var idBuffer: String
    private var typeBuffer = ""
    private var data: [UInt8] = []
    private var line: [UInt8] = []
    /// The last byte seen was a CR, so an LF right after it ends nothing.
    private var afterCR = false
    /// No line has ended yet: the first line may start with a byte-order mark.
    private var atStart = true

    /// Creates a parser for one response.
    ///
    /// - Parameters:
    ///   - lastEventID: the id of the last event of an earlier connection, which events without
    ///     an `id` field of their own carry.
    ///   - maximumEventSize: the most bytes of an unfinished line and event held.
    init(lastEventID: String = "", maximumEventSize: Int) {
        self.lastEventID = lastEventID
        self.idBuffer = lastEventID
        self.maximumEventSize = maximumEventSize
    }

    /// Parses `bytes`, the next piece of the stream, and returns the events it completes.
    ///
    /// - Throws: ``CourierError/Kind/responseTooLarge`` when an event or a line outgrows
    ///   ``maximumEventSize``.
    mutating func parse(_ bytes: Data) throws(CourierError) -> [EventStream.Event] {
        var events: [EventStream.Event] = []
        var start = bytes.startIndex
        var index = start
        let end = bytes.endIndex
        while index < end {
            let byte = bytes[index]
            if byte == Self.lf || byte == Self.cr {
                let skipsLF = afterCR && byte == Self.lf && index == start && line.isEmpty
                afterCR = byte == Self.cr
                if !skipsLF {
                    line.append(contentsOf: bytes[start..<index])
                    try check()
                    if let event = processLine() { events.append(event) }
                    line.removeAll(keepingCapacity: true)
                }
                index += 1
                start = index
                continue
            }
            afterCR = false
            index += 1
        }
        line.append(contentsOf: bytes[start..<end])
        try check()
        return events
    }

    /// Refuses an unfinished line and event that together outgrow the limit.
    private func check() throws(CourierError) {
        guard line.count + data.count > maximumEventSize else { return }
        throw CourierError(
            .responseTooLarge,
            "The event stream sent an event or line of more than \(maximumEventSize) bytes; pass a larger maximumEventSize to events(_:reconnection:maximumEventSize:) if such events are expected."
        )
    }

    /// Interprets one complete line (without its end), returning the event it dispatches.
    private mutating func processLine() -> EventStream.Event? {
        var content = line[...]
        if atStart {
            atStart = false
            if content.starts(with: Self.byteOrderMark) { content = content.dropFirst(3) }
        }
        if content.isEmpty { return dispatch() }
        if content.first == Self.colon { return nil }
        let name: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = content.firstIndex(of: Self.colon) {
            name = content[..<colon]
            value = content[(colon + 1)...]
            if value.first == Self.space { value = value.dropFirst() }
        } else {
            name = content
            value = []
        }
        switch String(decoding: name, as: UTF8.self) {
        case "event":
            typeBuffer = String(decoding: value, as: UTF8.self)
        case "data":
            data.append(contentsOf: value)
            data.append(Self.lf)
        case "id":
            if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        case "retry":
            if let milliseconds = Self.milliseconds(value) { reconnectionTime = .milliseconds(milliseconds) }
        default:
            break
        }
        return nil
    }

    /// The standard's dispatch step, at an empty line.
    private mutating func dispatch() -> EventStream.Event? {
        lastEventID = idBuffer
        defer {
            data.removeAll(keepingCapacity: true)
            typeBuffer = ""
        }
        guard !data.isEmpty else { return nil }
        let text = String(decoding: data.dropLast(), as: UTF8.self)
        return EventStream.Event(type: typeBuffer.isEmpty ? "message" : typeBuffer, data: text, id: lastEventID.isEmpty ? nil : lastEventID)
    }

    /// A `retry` value: ASCII digits only, at least one, saturating at about 31 years.
    static func milliseconds(_ value: ArraySlice<UInt8>) -> Int64? {
        guard !value.isEmpty else { return nil }
        var result: Int64 = 0
        for byte in value {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            result = min(result * 10 + Int64(byte - UInt8(ascii: "0")), 1_000_000_000_000)
        }
        return result
    }

    private static let lf = UInt8(ascii: "\n")
    private static let cr = UInt8(ascii: "\r")
    private static let colon = UInt8(ascii: ":")
    private static let space = UInt8(ascii: " ")
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
}
