import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

@Suite("courier events")
struct EventsCommandTests {
    /// The test server's events `ids`, as `courier events` prints them.
    static func printed(_ ids: ClosedRange<Int>, type: String? = nil) -> String {
        ids.map { id in (type.map { "event: \($0)\n" } ?? "") + "id: \(id)\ndata: {\"n\":\(id)}\n\n" }.joined()
    }

    @Test("events print as they would be sent, across drops, each whole event once; the reconnections carry Last-Event-ID")
    func printsAcrossDrops() async throws {
        try await withServer { server in
            let run = await courier("events", server.url("/events?count=5&retry=20&drop-after=2&type=tick").absoluteString)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == Self.printed(1...5, type: "tick"))
            let ids = server.receivedRequests.map { $0.header("Last-Event-ID") }
            #expect(ids == [nil, "2", "4", "5"])
        }
    }

    @Test("--report json prints one object per event: type, id, data")
    func reportJSON() async throws {
        try await withServer { server in
            let run = await courier("events", server.url("/events?count=3").absoluteString, "--report", "json", "--no-reconnect")
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 3)
            for (index, line) in lines.enumerated() {
                let object = try report(line)
                #expect(object["type"] as? String == "message")
                #expect(object["id"] as? String == "\(index + 1)")
                #expect(object["data"] as? String == "{\"n\":\(index + 1)}")
            }
            #expect(lines[0] == #"{"type":"message","id":"1","data":"{\"n\":1}"}"#)
        }
    }

    @Test("--max-events stops the stream; --last-event-id starts after an id")
    func maxEventsAndLastEventID() async throws {
        try await withServer { server in
            let first = await courier("events", server.url("/events?count=100&interval=0.01").absoluteString, "--max-events", "2")
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout == Self.printed(1...2))
            let resumed = await courier("events", server.url("/events?count=6").absoluteString, "--last-event-id", "4", "--no-reconnect")
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(resumed.stdout == Self.printed(5...6))
            #expect(server.receivedRequests.last?.header("Last-Event-ID") == "4")
        }
    }

    @Test("--no-reconnect: a dropped stream prints what arrived whole and fails as a cut-short transfer does")
    func noReconnect() async throws {
        try await withServer { server in
            let run = await courier("events", server.url("/events?count=5&drop-after=2").absoluteString, "--no-reconnect")
            #expect(run.stdout == Self.printed(1...2))
            #expect(run.status != 0)
            #expect(run.stderr.hasPrefix("courier: "))
            #expect(server.receivedRequests.count == 1)
        }
    }

    @Test("a response that is not an event stream, or an error status, ends the command with an error and nothing printed")
    func refusals() async throws {
        try await withServer { server in
            let json = await courier("events", server.url("/json").absoluteString)
            #expect(json.status == ExitStatus.malformedResponse.rawValue)
            #expect(json.stdout.isEmpty)
            #expect(json.stderr.contains("not text/event-stream"), "\(json.stderr)")
            let missing = await courier("events", server.url("/status/404").absoluteString)
            #expect(missing.status == ExitStatus.httpError.rawValue)
            #expect(missing.stderr.contains("404"), "\(missing.stderr)")
            #expect(server.receivedRequests.count == 2)
        }
    }

    @Test("control characters in an event are escaped before they reach the terminal, and are exact in JSON")
    func hostileText() async throws {
        try await withServer { server in
            let stream = Data("event: \u{1B}]0;owned\u{07}\ndata: \u{1B}[31mred\n\n".utf8).base64EncodedString()
            let url = server.url("/base64/\(stream)?content_type=text/event-stream").absoluteString
            let text = await courier("events", url, "--no-reconnect")
            #expect(text.status == 0, "\(text.stderr)")
            #expect(!text.stdout.contains("\u{1B}"))
            #expect(!text.stdout.contains("\u{07}"))
            #expect(text.stdout.contains("red"))
            let json = await courier("events", url, "--no-reconnect", "--report", "json")
            let object = try report(json.stdout.trimmingCharacters(in: .newlines))
            #expect(object["data"] as? String == "\u{1B}[31mred")
            #expect(object["type"] as? String == "\u{1B}]0;owned\u{07}")
        }
    }

    @Test("a POST with -d is sent once, its body as given, and not sent again when the stream ends")
    func postOnce() async throws {
        try await withServer { server in
            let run = await courier("events", server.url("/events?count=2").absoluteString, "-d", "{\"q\":1}")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == Self.printed(1...2))
            #expect(server.receivedRequests.count == 1)
            #expect(server.receivedRequests.first?.method == "POST")
            #expect(server.receivedRequests.first?.body == Array("{\"q\":1}".utf8))
        }
    }
}
