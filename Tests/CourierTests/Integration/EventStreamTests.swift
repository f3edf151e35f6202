import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import CourierServerSentEvents

@Suite("Server-Sent Events over the client's request path")
struct EventStreamTests {
    typealias Event = EventStream.Event

    /// The events of `stream`, to its end.
    static func all(_ stream: EventStream) async throws -> [Event] {
        var events: [Event] = []
        for try await event in stream { events.append(event) }
        return events
    }

    /// The numbers the test server puts in its events' data.
    static func numbers(_ events: [Event]) throws -> [Int] {
        struct Tick: Decodable { let n: Int }
        return try events.map { try $0.decode(Tick.self).n }
    }

    @Test("a stream dropped mid-event reconnects after the server's retry with Last-Event-ID, and delivers each whole event once")
    func dropAndResume() async throws {
        try await withServer { server in
            let clock = RecordingClock()
            let outcomes = NIOLockedValueBox<[RequestState]>([])
            try await withClient(
                server,
                configure: {
                    $0.clock = clock
                    $0.observers = [EventHooks(didStop: { event in outcomes.withLockedValue { $0.append(event.state) } })]
                }
            ) { client in
                let events = try await Self.all(client.events(CourierRequest<Void>(path: "/events?count=7&retry=1500&drop-after=3&type=tick")))
                #expect(try Self.numbers(events) == Array(1...7))
                #expect(events.allSatisfy { $0.type == "tick" })
                #expect(events.map(\.id) == (1...7).map { "\($0)" })
                // Three connections with events; the fourth hears 204 and ends the stream.
                let requests = server.receivedRequests.filter { $0.uri.hasPrefix("/events") }
                #expect(requests.map { $0.header("Last-Event-ID") } == [nil, "3", "6", "7"])
                #expect(requests.allSatisfy { $0.header("Accept") == "text/event-stream" && $0.header("Cache-Control") == "no-cache" })
                #expect(clock.sleeps == [.milliseconds(1500), .milliseconds(1500), .milliseconds(1500)])
                // The path saw each connection end as it did: two drops, the last stream's end, the 204.
                #expect(outcomes.withLockedValue { $0 } == [.failed, .failed, .completed, .completed])
            }
        }
    }

    @Test("a drop after hundreds of events sent at once resumes after exactly the last whole event the server sent")
    func resumesAfterTheLastEventSent() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.clock = RecordingClock() }) { client in
                // Each connection writes 250 events and half of the next at once, then drops.
                let events = try await Self.all(client.events(CourierRequest<Void>(path: "/events?count=600&drop-after=250&retry=0")))
                #expect(try Self.numbers(events) == Array(1...600))
                let requests = server.receivedRequests.filter { $0.uri.hasPrefix("/events") }
                #expect(requests.map { $0.header("Last-Event-ID") } == [nil, "250", "500", "600"])
            }
        }
    }

    @Test("a stream silent past the read timeout is dropped and resumed after the last whole event")
    func silenceReconnects() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.clock = RecordingClock() }) { client in
                // Each connection sends one event at once, then falls silent for 10 s.
                var request = CourierRequest<Void>(path: "/events?count=3&interval=10")
                request.connection.readTimeout = .after(.seconds(1))
                let events = try await Self.all(client.events(request))
                #expect(try Self.numbers(events) == [1, 2, 3])
                let resumedAfter = server.receivedRequests.compactMap { $0.header("Last-Event-ID") }
                // A connection the timeout ends before its first byte is tried again with the same id.
                #expect(Set(resumedAfter) == ["1", "2", "3"], "\(resumedAfter)")
            }
        }
    }

    @Test(
        "line ends, a byte-order mark and pieces of one byte over the wire change nothing",
        arguments: ["line-end=cr", "line-end=crlf&bom=1", "line-end=lf&chunk=1", "line-end=crlf&chunk=1&bom=1"]
    )
    func wireForms(_ form: String) async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let events = try await Self.all(client.events(CourierRequest<Void>(path: "/events?count=4&\(form)"), reconnection: .never))
                #expect(try Self.numbers(events) == [1, 2, 3, 4])
                #expect(events.last?.id == "4")
            }
        }
    }

    @Test("a Last-Event-ID of the request's own is where the stream starts; a 204 ends it with no event")
    func startsAfterAnID() async throws {
        try await withServer { server in
            let clock = RecordingClock()
            try await withClient(server, configure: { $0.clock = clock }) { client in
                var request = CourierRequest<Void>(path: "/events?count=5")
                request.headers.set(name: "Last-Event-ID", value: "3")
                let rest = try await Self.all(client.events(request))
                #expect(try Self.numbers(rest) == [4, 5])
                request.headers.set(name: "Last-Event-ID", value: "5")
                let none = try await Self.all(client.events(request))
                #expect(none.isEmpty)
                // The first stream ended, waited, and heard 204; the second heard it at once.
                #expect(clock.sleeps == [.seconds(3)])
            }
        }
    }

    @Test("every connection carries the client's default headers and credentials")
    func everyConnectionTakesThePath() async throws {
        try await withServer { server in
            let clock = RecordingClock()
            try await withClient(
                server,
                configure: {
                    $0.clock = clock
                    $0.defaultHeaders.set(name: "X-Team", value: "blue")
                    $0.authentication = Authentication(.bearer("token-1"))
                }
            ) { client in
                let events = try await Self.all(client.events(CourierRequest<Void>(path: "/events?count=4&drop-after=2")))
                #expect(try Self.numbers(events) == [1, 2, 3, 4])
                let requests = server.receivedRequests.filter { $0.uri.hasPrefix("/events") }
                #expect(requests.count == 3)
                #expect(requests.allSatisfy { $0.header("X-Team") == "blue" && $0.header("Authorization") == "Bearer token-1" })
            }
        }
    }

    @Test("a response that is not an event stream, or not a success, throws validationFailed with the response; nothing reconnects")
    func refusals() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.retryPolicy = .none }) { client in
                let json = await courierError { _ = try await Self.all(client.events(CourierRequest<Void>(path: "/json"))) }
                #expect(json?.kind == .validationFailed)
                #expect(json?.response?.headers["Content-Type"] == "application/json")
                #expect(json?.message.contains("text/event-stream") == true)
                let missing = await courierError { _ = try await Self.all(client.events(CourierRequest<Void>(path: "/status/404"))) }
                #expect(missing?.kind == .validationFailed)
                #expect(missing?.status == 404)
                #expect(server.receivedRequests.count == 2)
            }
        }
    }

    @Test("a POST does not reconnect by default: its drop is thrown after the events that arrived")
    func postDoesNotReconnect() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var request = CourierRequest<Void>(path: "/events?count=5&drop-after=2")
                request.method = .post
                var seen: [Event] = []
                let error = await courierError {
                    for try await event in client.events(request) { seen.append(event) }
                }
                let numbers = try Self.numbers(seen)
                #expect(numbers == [1, 2])
                #expect(error.map { EventSource.reconnects(after: $0) } == true, "\(String(describing: error))")
                #expect(server.receivedRequests.count == 1)
            }
        }
    }

    @Test("a server that cannot be reached is tried again with doubled waits, then the last failure is thrown")
    func attemptsRunOut() async throws {
        let closed = try ReservedPort()
        let clock = RecordingClock()
        try await withClient(
            nil,
            configure: {
                $0.clock = clock
                $0.retryPolicy = .none
            }
        ) { client in
            let stream = client.events(
                CourierRequest<Void>(path: closed.url("/events").absoluteString),
                reconnection: .init(delay: .seconds(1), maximumAttempts: 3)
            )
            let error = await courierError { _ = try await Self.all(stream) }
            #expect(error?.kind == .connectionFailed)
            #expect(clock.sleeps == [.seconds(1), .seconds(2), .seconds(4)])
        }
    }

    @Test("an event past the size limit throws responseTooLarge; bad settings throw invalidConfiguration before anything is sent")
    func limits() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let large = await courierError { _ = try await Self.all(client.events(CourierRequest<Void>(path: "/events?count=2"), maximumEventSize: 8)) }
                #expect(large?.kind == .responseTooLarge)
                let requestsSoFar = server.receivedRequests.count
                let size = await courierError { _ = try await Self.all(client.events(CourierRequest<Void>(path: "/events"), maximumEventSize: 0)) }
                #expect(size?.kind == .invalidConfiguration)
                let attempts = await courierError {
                    _ = try await Self.all(client.events(CourierRequest<Void>(path: "/events"), reconnection: .init(maximumAttempts: -1)))
                }
                #expect(attempts?.kind == .invalidConfiguration)
                #expect(server.receivedRequests.count == requestsSoFar)
            }
        }
    }

    @Test("cancelling the iterating task while it waits for an event throws cancelled and closes the connection")
    func cancellation() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let stream = client.events(CourierRequest<Void>(path: "/events?count=3&interval=10"))
                let firstArrived = AsyncStream<Void>.makeStream()
                let reading = Task {
                    var count = 0
                    for try await _ in stream {
                        count += 1
                        firstArrived.continuation.yield()
                    }
                    return count
                }
                for await _ in firstArrived.stream { break }
                reading.cancel()
                let error = await courierError { _ = try await reading.value }
                #expect(error?.kind == .cancelled)
                #expect(await eventually { server.openConnections == 0 })
            }
        }
    }

    @Test("a thousand events cut into 7-byte pieces, across drops, arrive in order, each once; each reconnection names the last whole event")
    func manyEventsInOrder() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.clock = RecordingClock() }) { client in
                let events = try await Self.all(client.events(CourierRequest<Void>(path: "/events?count=1000&chunk=7&drop-after=250&retry=0")))
                #expect(try Self.numbers(events) == Array(1...1000))
                // Wherever the connections dropped, each reconnection carried on after the last
                // whole event, and the last one heard that there is no more.
                let resumedAfter = server.receivedRequests.compactMap { $0.header("Last-Event-ID").flatMap(Int.init) }
                #expect(resumedAfter == resumedAfter.sorted() && Set(resumedAfter).count == resumedAfter.count, "\(resumedAfter)")
                #expect(resumedAfter.last == 1000)
                #expect(server.receivedRequests.count == resumedAfter.count + 1)
            }
        }
    }

    @Test("breaking out of the loop closes the connection; the events already read are the ones delivered")
    func breakingOut() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var seen: [Event] = []
                // Paced, so that the stream is still running when the loop ends: a response
                // that had ended would leave its connection open for reuse, as it should.
                for try await event in client.events(CourierRequest<Void>(path: "/events?count=1000&chunk=7&interval=0.05")) {
                    seen.append(event)
                    if seen.count == 3 { break }
                }
                #expect(try Self.numbers(seen) == [1, 2, 3])
                #expect(await eventually { server.openConnections == 0 })
            }
        }
    }
}
