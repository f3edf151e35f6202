import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Records observer calls in order.
final class EventRecorder: Sendable {
    let events = NIOLockedValueBox<[String]>([])

    var hooks: EventHooks {
        EventHooks(
            willStart: { event in self.events.withLockedValue { $0.append("willStart:\(event.state)") } },
            willStop: { event in self.events.withLockedValue { $0.append("willStop:\(event.response?.status ?? -1)") } },
            didStop: { event in self.events.withLockedValue { $0.append("didStop:\(event.state)") } },
            stateChange: { event in self.events.withLockedValue { $0.append("\(event.previousState)→\(event.state)") } }
        )
    }

    var all: [String] { events.withLockedValue { $0 } }
}

@Suite("Lifecycle, hooks and callback styles")
struct LifecycleIntegrationTests {
    @Test func hooksSeeEveryTransitionInOrder() async throws {
        let recorder = EventRecorder()
        try await withServer { server in
            try await withClient(server, configure: { $0.observers = [recorder.hooks] }) { client in
                _ = try await client.send(CourierRequest<Echo>(path: "/get"))
            }
        }
        #expect(recorder.all == ["ready→started", "willStart:started", "willStop:200", "started→completed", "didStop:completed"])
    }

    @Test func failedRequestsEndInFailed() async throws {
        let recorder = EventRecorder()
        try await withServer { server in
            try await withClient(server, configure: { $0.observers = [recorder.hooks] }) { client in
                _ = await courierError { try await client.send(CourierRequest<Void>(path: "/status/500")) }
            }
        }
        #expect(recorder.all == ["ready→started", "willStart:started", "willStop:500", "started→failed", "didStop:failed"])
    }

    @Test func completionHandlersAreCalledOnce() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let value: Echo = try await withCheckedThrowingContinuation { continuation in
                    client.start(
                        CourierRequest<Echo>(path: "/get?x=1"),
                        success: { continuation.resume(returning: $0) },
                        failure: { continuation.resume(throwing: $0) }
                    )
                }
                #expect(value.args["x"] == "1")
                let failure: (any Error)? = await withCheckedContinuation { continuation in
                    client.start(
                        CourierRequest<Void>(path: "/status/404"),
                        success: { continuation.resume(returning: nil) },
                        failure: { continuation.resume(returning: $0) }
                    )
                }
                #expect((failure as? CourierError)?.response?.status == 404)
            }
        }
    }

    final class Delegate: RequestDelegate {
        let outcome = NIOLockedValueBox<String?>(nil)
        let done: AsyncStream<Void>.Continuation
        init(done: AsyncStream<Void>.Continuation) { self.done = done }
        func requestDidFinish(_ id: CourierRequestID, value: Echo) {
            outcome.withLockedValue { $0 = "finished \(value.method)" }
            done.yield()
        }
        func requestDidFail(_ id: CourierRequestID, error: any Error) {
            outcome.withLockedValue { $0 = "failed \(error)" }
            done.yield()
        }
    }

    @Test func delegateAdapter() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let (stream, continuation) = AsyncStream<Void>.makeStream()
                let delegate = Delegate(done: continuation)
                let handle = client.start(CourierRequest<Echo>(method: .delete, path: "/delete"), delegate: delegate)
                var iterator = stream.makeAsyncIterator()
                await iterator.next()
                #expect(delegate.outcome.withLockedValue { $0 } == "finished DELETE")
                #expect(handle.state == .completed)
            }
        }
    }
}

@Suite("Interceptors")
struct InterceptorTests {
    @Test func urlArgumentsFilterAddsMissingArguments() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.interceptors = [URLArgumentsFilter(["app": "1", "q": "filter"])] }) { client in
                let echo = try await client.send(CourierRequest<Echo>(path: "/get?q=mine"))
                #expect(echo.args["app"] == "1")
                #expect(echo.args["q"] == "mine")
            }
        }
    }

    @Test func interceptorsRunOutermostFirstAndCanAnswer() async throws {
        struct Tagger: Interceptor {
            let name: String
            func intercept(_ request: CourierHTTPRequest, next: Next) async throws -> CourierResponse {
                var request = request
                let previous = request.headers["X-Order"].map { $0 + "," } ?? ""
                request.headers.set(name: "X-Order", value: previous + name)
                return try await next(request)
            }
        }
        struct ShortCircuit: Interceptor {
            func intercept(_ request: CourierHTTPRequest, next: Next) async throws -> CourierResponse {
                if request.url.path == "/local" { return CourierResponse(status: 299, url: request.url) }
                return try await next(request)
            }
        }
        try await withServer { server in
            try await withClient(server, configure: { $0.interceptors = [Tagger(name: "a"), Tagger(name: "b"), ShortCircuit()] }) { client in
                let echo = try await client.send(CourierRequest<Echo>(path: "/get"))
                #expect(echo.header("X-Order") == "a,b")
                let local = try await client.send(CourierRequest<CourierResponse>(path: "/local"))
                #expect(local.status == 299)
                #expect(server.receivedRequests.count == 1)
            }
        }
    }

    @Test func errorMapperTurnsResponsesIntoErrors() async throws {
        struct APIError: Error, Equatable { let code: String }
        let mapper = ErrorMapper(response: { response in
            response.headers["X-Api-Error"].map { APIError(code: $0) }
        })
        try await withServer { server in
            try await withClient(server, configure: { $0.interceptors = [mapper] }) { client in
                do {
                    _ = try await client.send(CourierRequest<Echo>(path: "/response-headers?X-Api-Error=quota"))
                    Issue.record("expected the mapped error")
                } catch let error as APIError {
                    #expect(error == APIError(code: "quota"))
                }
            }
        }
    }

    @Test func asyncHeaderInjection() async throws {
        let injector = HeaderInjector { _ in ["Authorization": "Bearer from-store"] }
        try await withServer { server in
            try await withClient(server, configure: { $0.interceptors = [injector] }) { client in
                let echo = try await client.send(CourierRequest<Echo>(path: "/get"))
                #expect(echo.header("Authorization") == "Bearer from-store")
            }
        }
    }
}
