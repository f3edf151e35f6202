import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

/// One deadline for the whole call, and one retry concept whether the body is buffered,
/// streamed or downloaded.
@Suite("One deadline and one retry concept for every way of reading a body")
struct OneRetryConceptTests {
    @Test("the total timeout spans every attempt: a call that stalls after two 503s ends at its deadline, not one deadline later")
    func theTotalTimeoutSpansEveryAttempt() async throws {
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.retryPolicy = CourierRetryPolicy(maximumAttempts: 6, baseDelay: .milliseconds(1))
                    $0.timeouts.total = .seconds(4)
                }
            ) { client in
                // Two quick 503s, then an answer held for longer than the whole call may take.
                let error = await courierError {
                    _ = try await client.send(CourierRequest<Data>(path: "/flaky?failures=2&status=503&retry_after=0&then_delay=10&key=spans"))
                }
                #expect(error?.kind == .timeout, "\(String(describing: error))")
                // A deadline per attempt would have sent the stalled request again, until the
                // sixth attempt. (On a loaded machine the second 503 may come late enough that
                // the deadline passes before the third attempt.)
                #expect((2...3).contains(server.receivedRequests.count))
            }
        }
    }

    @Test("a request that waits for a scheduler slot past its deadline fails with a timeout, unsent")
    func theWaitForASlotIsBoundedByTheDeadline() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.limits.maximumConcurrentRequestsPerHost = 1 }) { client in
                // The one slot is held by a request the server keeps at a gate.
                let holder = Task { try await client.send(CourierRequest<Data>(path: "/gate/slot")) }
                #expect(await eventually { server.requestsWaiting(atGate: "slot") == 1 })
                var waiting = CourierRequest<Data>(path: "/get?waited=1")
                waiting.timeout = .milliseconds(300)
                let error = await courierError { _ = try await client.send(waiting) }
                #expect(error?.kind == .timeout)
                #expect(error?.requestMayHaveBeenSent == false)
                #expect(!server.receivedRequests.contains { $0.uri.contains("waited") })
                server.openGate("slot")
                _ = try await holder.value
                // The slot the expired request never took is not lost.
                _ = try await client.send(CourierRequest<Data>(path: "/get"))
            }
        }
    }

    @Test("a wait for a retry that would end past the deadline is not taken: the last response is delivered")
    func aWaitPastTheDeadlineIsNotTaken() async throws {
        let clock = RecordingClock()
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.retryPolicy = CourierRetryPolicy(maximumAttempts: 4)
                    $0.timeouts.total = .seconds(20)
                    $0.clock = clock
                }
            ) { client in
                var request = CourierRequest<CourierResponse>(path: "/flaky?failures=3&status=503&retry_after=30&key=past")
                request.validators = []
                let response = try await client.send(request)
                #expect(response.status == 503)
                #expect(server.receivedRequests.count == 1)
            }
        }
        #expect(clock.sleeps.isEmpty)
    }

    @Test("a streamed request retries a retryable status before its reader sees it, as a buffered one does")
    func aStreamedRequestRetriesARetryableStatus() async throws {
        let clock = RecordingClock()
        let readers = NIOLockedValueBox(0)
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.retryPolicy = CourierRetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1))
                    $0.clock = clock
                }
            ) { client in
                let (status, body) = try await client.stream(CourierRequest<Void>(path: "/flaky?failures=2&status=503&retry_after=1&key=stream")) {
                    response in
                    readers.withLockedValue { $0 += 1 }
                    return (response.head.status, try await response.body.collect(upTo: 1 << 20))
                }
                #expect(status == 200)
                #expect(!body.isEmpty)
                #expect(server.receivedRequests.count == 3)
            }
        }
        #expect(readers.withLockedValue { $0 } == 1)
        #expect(clock.sleeps == [.seconds(1), .seconds(1)])
    }

    @Test("a status the policy does not retry reaches the streamed reader at once")
    func aFinalStatusReachesTheReader() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.retryPolicy = CourierRetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1)) }) { client in
                var request = CourierRequest<Void>(path: "/status/404")
                request.validators = []
                let status = try await client.stream(request) { $0.head.status }
                #expect(status == 404)
                #expect(server.receivedRequests.count == 1)
            }
        }
    }

    @Test("a body cut short is not sent again without a retry policy, buffered or streamed")
    func aCutBodyIsNotReplayed() async throws {
        let server = try await FaultServer.start(.closeMidBody)
        do {
            try await withClient(nil, configure: { $0.retryPolicy = .none }) { client in
                let buffered = await courierError { _ = try await client.send(CourierRequest<Data>(path: "\(server.url)/")) }
                #expect(buffered?.kind == .connectionFailed)
                #expect(buffered?.connectionFailure == .cutShort)
                #expect(server.acceptedConnections == 1)
                let streamed = await courierError {
                    _ = try await client.stream(CourierRequest<Void>(path: "\(server.url)/")) { try await $0.body.collect(upTo: 1 << 20) }
                }
                #expect(streamed?.kind == .connectionFailed)
                #expect(server.acceptedConnections == 2)
            }
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    @Test("a download resumes as the retry policy says: once without retries, to the end with them")
    func aDownloadFollowsTheRetryPolicy() async throws {
        try await withTemporaryFolder { folder in
            try await withServer { server in
                let path = "/range/400000?seed=2&drops=1&drop_at=150000&chunk_delay=0.001"
                try await withClient(server, configure: { $0.retryPolicy = .none }) { client in
                    let error = await courierError {
                        _ = try await client.download(CourierRequest<Void>(path: path), to: .file(folder.appendingPathComponent("once.bin")))
                    }
                    #expect(error?.kind == .connectionFailed)
                    #expect(server.receivedRequests.count == 1)
                }
                try await withClient(server, configure: { $0.retryPolicy = CourierRetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1)) }) { client in
                    let request = CourierRequest<Void>(path: path + "&key=policy")
                    let result = try await client.download(request, to: .file(folder.appendingPathComponent("resumed.bin")))
                    #expect(result.attempts == 2)
                    #expect(result.response.status == 206)
                }
                // The request's own policy takes precedence over the client's.
                try await withClient(server, configure: { $0.retryPolicy = CourierRetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1)) }) { client in
                    var request = CourierRequest<Void>(path: path + "&key=own")
                    request.retryPolicy = CourierRetryPolicy.none
                    let error = await courierError { _ = try await client.download(request, to: .file(folder.appendingPathComponent("own.bin"))) }
                    #expect(error?.kind == .connectionFailed)
                }
            }
        }
    }
}
