import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

@Suite("Retries against the in-process server")
struct RetryIntegrationTests {
    /// A client retrying up to `attempts` times on `clock`, recording retry events.
    static func withRetryingClient<T>(
        _ server: TestServer?,
        attempts: Int = 3,
        clock: RecordingClock,
        events: NIOLockedValueBox<[Int]>,
        _ body: (CourierClient) async throws -> T
    ) async throws -> T {
        try await withClient(
            server,
            configure: {
                $0.retryPolicy = CourierRetryPolicy(maximumAttempts: attempts, baseDelay: .milliseconds(100))
                $0.clock = clock
                $0.observers = [EventHooks(willRetry: { event in events.withLockedValue { $0.append(event.attempt) } })]
            }, body)
    }

    @Test func transientFailuresAreRetriedWithBackoffWithinBounds() async throws {
        let clock = RecordingClock()
        let events = NIOLockedValueBox<[Int]>([])
        try await withServer { server in
            try await Self.withRetryingClient(server, clock: clock, events: events) { client in
                let echo = try await client.send(CourierRequest<Echo>(path: "/flaky?failures=2&status=502&key=a"))
                #expect(echo.method == "GET")
                #expect(server.receivedRequests.count == 3)
            }
        }
        #expect(events.withLockedValue { $0 } == [1, 2])
        let sleeps = clock.sleeps
        #expect(sleeps.count == 2)
        #expect(sleeps[0] >= .zero && sleeps[0] <= .milliseconds(100))
        #expect(sleeps[1] >= .zero && sleeps[1] <= .milliseconds(200))
    }

    @Test(arguments: [("7", Duration.seconds(7)), ("0", Duration.zero)])
    func retryAfterSecondsIsHonoured(header: String, expected: Duration) async throws {
        let clock = RecordingClock()
        try await withServer { server in
            try await Self.withRetryingClient(server, clock: clock, events: .init([])) { client in
                _ = try await client.send(CourierRequest<Echo>(path: "/flaky?failures=1&status=503&retry_after=\(header)"))
            }
        }
        #expect(clock.sleeps == [expected])
    }

    @Test func retryAfterDateIsHonoured() async throws {
        let clock = RecordingClock()
        let started = ContinuousClock.now
        let date = HTTPDate.format(Date().addingTimeInterval(20))
        let encoded = date.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        try await withServer { server in
            try await Self.withRetryingClient(server, clock: clock, events: .init([])) { client in
                _ = try await client.send(CourierRequest<Echo>(path: "/flaky?failures=1&status=429&retry_after=\(encoded)"))
            }
        }
        let sleep = try #require(clock.sleeps.first)
        // The date has one-second resolution, and however long the test took (a loaded machine
        // can stall it for seconds) has already passed when the delay is computed.
        let elapsed = ContinuousClock.now - started
        #expect(sleep <= .seconds(20))
        #expect(sleep >= .seconds(19) - elapsed)
    }

    @Test func aPostWithoutAKeyIsNeverRetriedOnceSent() async throws {
        let clock = RecordingClock()
        try await withServer { server in
            try await Self.withRetryingClient(server, clock: clock, events: .init([])) { client in
                var request = CourierRequest<CourierResponse>(method: .post, path: "/flaky?failures=1&key=post", body: .text("x"))
                request.validators = []
                let response = try await client.send(request)
                #expect(response.status == 503)
                #expect(server.receivedRequests.count == 1)
            }
        }
        #expect(clock.sleeps.isEmpty)
    }

    @Test func aPostWithAnIdempotencyKeyIsRetriedWithTheSameKey() async throws {
        let clock = RecordingClock()
        try await withServer { server in
            try await Self.withRetryingClient(server, clock: clock, events: .init([])) { client in
                var request = CourierRequest<Echo>(method: .post, path: "/flaky?failures=1&key=keyed", body: .text("x"))
                request.headers.add(name: "Idempotency-Key", value: "4f0c1a52")
                let echo = try await client.send(request)
                #expect(echo.data == "x")
                #expect(server.receivedRequests.map { $0.header("Idempotency-Key") } == ["4f0c1a52", "4f0c1a52"])
            }
        }
    }

    @Test func aRefusedConnectionIsRetriedEvenForAPost() async throws {
        let clock = RecordingClock()
        let events = NIOLockedValueBox<[Int]>([])
        let server = try await TestServer.start()
        let url = server.url("/post")
        try await server.shutdown()
        let error = await courierError {
            try await Self.withRetryingClient(nil, clock: clock, events: events) { client in
                _ = try await client.send(CourierRequest<CourierResponse>(method: .post, path: url.absoluteString, body: .text("x")))
            }
        }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.requestMayHaveBeenSent == false)
        #expect(events.withLockedValue { $0 } == [1, 2])
    }

    @Test func exhaustedRetriesDeliverTheLastOutcome() async throws {
        let clock = RecordingClock()
        try await withServer { server in
            try await Self.withRetryingClient(server, attempts: 3, clock: clock, events: .init([])) { client in
                let error = await courierError { _ = try await client.send(CourierRequest<Echo>(path: "/flaky?failures=9&status=504&key=x")) }
                #expect(error?.kind == .validationFailed)
                #expect(error?.response?.status == 504)
                #expect(error?.status == 504)
                #expect(error?.attempts == 3)
                #expect(error?.description.contains("(after 3 attempts)") == true)
                #expect(server.receivedRequests.count == 3)
            }
        }
    }

    @Test("an error says how many times its request was sent: once, or not at all")
    func errorsCountTheirAttempts() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let notFound = await courierError { _ = try await client.send(CourierRequest<Echo>(path: "/status/404")) }
                #expect(notFound?.status == 404)
                #expect(notFound?.attempts == 1)
                #expect(notFound?.description.contains("attempts") == false)
                // Refused before anything was sent.
                var absurd = CourierRequest<Echo>(path: "/get")
                absurd.timeout = .seconds(-1)
                let refused = await courierError { _ = try await client.send(absurd) }
                #expect(refused?.kind == .invalidConfiguration)
                #expect(refused?.attempts == 0)
                #expect(refused?.status == nil)
            }
        }
    }

    @Test func aRequestCanOverrideTheClientsPolicy() async throws {
        let clock = RecordingClock()
        try await withServer { server in
            try await Self.withRetryingClient(server, clock: clock, events: .init([])) { client in
                var request = CourierRequest<CourierResponse>(path: "/flaky?failures=1&key=override")
                request.retryPolicy = CourierRetryPolicy.none
                request.validators = []
                let response = try await client.send(request)
                #expect(response.status == 503)
                #expect(server.receivedRequests.count == 1)
            }
        }
    }
}
