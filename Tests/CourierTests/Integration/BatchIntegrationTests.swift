import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Holds back requests whose path contains `marker` until `ready()` holds.
struct HoldBack: Interceptor {
    let marker: String
    let ready: @Sendable () -> Bool

    func intercept(_ request: CourierHTTPRequest, next: Next) async throws -> CourierResponse {
        if request.url.path.contains(marker) {
            for _ in 0..<500 where !ready() { try await Task.sleep(for: .milliseconds(20)) }
        }
        return try await next(request)
    }
}

@Suite("Batches against the in-process server")
struct BatchIntegrationTests {
    @Test func failFastCancelsTheOthersAndNamesTheFailure() async throws {
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.interceptors = [HoldBack(marker: "/status/") { server.receivedRequests.count >= 3 }]
                }
            ) { client in
                var batch = Batch(mode: .failFast, maximumConcurrency: 4)
                let slow = (0..<3).map { batch.add(CourierRequest<Data>(path: "/gate/held?slow=\($0)")) }
                let failing = batch.add(CourierRequest<Data>(path: "/status/500"))
                let notSent = batch.add(CourierRequest<Data>(path: "/get?never"))

                do {
                    _ = try await client.run(batch)
                    Issue.record("a fail-fast batch with a 500 must throw")
                } catch let error as BatchError {
                    #expect(error.index == failing.index)
                    #expect((error.error as? CourierError)?.kind == .validationFailed)
                    #expect((error.error as? CourierError)?.response?.status == 500)
                    for entry in slow + [notSent] {
                        #expect(throws: CourierError.self) { try error.results.value(for: entry) }
                        let kind = failureKind(error.results[entry])
                        #expect(kind == .cancelled, "entry \(entry.index)")
                    }
                    #expect(error.results.failedIndices == [0, 1, 2, 3, 4])
                }
                // The server saw the three slow requests, then their connections closed; only the
                // idle keep-alive connection of the 500 may stay.
                #expect(await eventually { server.openConnections <= 1 }, "cancelled requests kept their connections")
                #expect(!server.receivedRequests.contains { $0.uri.contains("never") })
            }
        }
    }

    @Test func settleModeReportsEveryTypedResult() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var batch = Batch(mode: .settle, maximumConcurrency: 2)
                let echo = batch.add(CourierRequest<Echo>(path: "/anything/echo"))
                let missing = batch.add(CourierRequest<Data>(path: "/status/404"))
                let text = batch.add(CourierRequest<String>(path: "/base64/aGVsbG8="))
                let undecodable = batch.add(CourierRequest<Echo>(path: "/bytes/8"))
                let progress = NIOLockedValueBox<[BatchProgress]>([])

                let results = try await client.run(batch) { update in progress.withLockedValue { $0.append(update) } }

                #expect(try results.value(for: echo).url.hasSuffix("/anything/echo"))
                #expect(try results.value(for: text) == "hello")
                let missingError = failureKind(results[missing])
                #expect(missingError == .validationFailed)
                let decodingError = failureKind(results[undecodable])
                #expect(decodingError == .decodingFailed)
                #expect(results.failedIndices == [missing.index, undecodable.index])
                #expect(server.receivedRequests.count == 4)

                let seen = progress.withLockedValue { $0 }
                #expect(seen.first == BatchProgress(completed: 0, failed: 0, total: 4))
                #expect(seen.last == BatchProgress(completed: 4, failed: 2, total: 4))
                #expect(seen.map(\.completed) == [0, 1, 2, 3, 4])
            }
        }
    }

    @Test func concurrencyBoundIsNeverExceeded() async throws {
        try await withServer { server in
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configuration.limits.maximumConcurrentRequestsPerHost = 16
            let transport = CountingTransport()
            let client = CourierClient(configuration: configuration, transport: transport, ownsTransport: true)
            var batch = Batch(mode: .settle, maximumConcurrency: 3)
            for index in 0..<12 { batch.add(CourierRequest<Data>(path: "/delay/0.05?i=\(index)")) }
            let results = try await client.run(batch)
            try await client.shutdown()
            #expect(results.failedIndices.isEmpty)
            #expect(transport.most == 3)
            #expect(server.receivedRequests.count == 12)
        }
    }

    @Test func handleStreamsProgressAndCancels() async throws {
        try await withTwoServers { server, slowServer in
            try await withClient(server) { client in
                var batch = Batch(mode: .settle, maximumConcurrency: 4)
                for index in 0..<8 { batch.add(CourierRequest<Data>(path: "/get?i=\(index)")) }
                let handle = client.start(batch)
                var last: BatchProgress?
                for await update in handle.progress {
                    if let last { #expect(update.completed >= last.completed) }
                    last = update
                }
                #expect(last == BatchProgress(completed: 8, failed: 0, total: 8))
                #expect(try await handle.results.failedIndices.isEmpty)

                var slow = Batch(mode: .settle, maximumConcurrency: 2)
                for index in 0..<6 { slow.add(CourierRequest<Data>(path: slowServer.url("/gate/held?c=\(index)").absoluteString)) }
                let cancelled = client.start(slow)
                #expect(await eventually { slowServer.receivedRequests.count == 2 })
                cancelled.cancel()
                let results = try await cancelled.results
                #expect(results.failedIndices == Array(0..<6))
                for index in 0..<6 {
                    let kind = failureKind(results.result(at: index))
                    #expect(kind == .cancelled)
                }
                #expect(slowServer.receivedRequests.count == 2)
                #expect(await eventually { slowServer.openConnections == 0 }, "cancelled requests kept their connections")
            }
        }
    }

    @Test func generatedRequestsAreMadeOnlyWhenTheirTurnComes() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let made = NIOLockedValueBox<[Int]>([])
                var batch = Batch(mode: .settle, maximumConcurrency: 3)
                let first = batch.add(CourierRequest<String>(path: "/base64/Zmlyc3Q="))
                let pages = batch.add(count: 10) { offset in
                    made.withLockedValue { $0.append(offset) }
                    return CourierRequest<Echo>(path: "/anything/page/\(offset)")
                }
                #expect(batch.count == 11 && pages.map(\.index) == Array(1...10))
                #expect(made.withLockedValue { $0 }.isEmpty, "nothing is made before the batch runs")
                let results = try await client.run(batch)
                #expect(try results.value(for: first) == "first")
                #expect(try results.value(for: pages[9]).url.hasSuffix("/anything/page/9"))
                #expect(made.withLockedValue { $0 } == Array(0..<10))

                // A fail-fast batch that stops early never makes the requests it did not reach.
                made.withLockedValue { $0 = [] }
                var stopping = Batch(mode: .failFast, maximumConcurrency: 2)
                stopping.add(count: 50) { offset in
                    made.withLockedValue { $0.append(offset) }
                    return CourierRequest<Data>(path: offset == 0 ? "/status/500" : "/gate/held?generated=\(offset)")
                }
                await #expect(throws: BatchError.self) { try await client.run(stopping) }
                #expect(made.withLockedValue { $0 } == [0, 1])
            }
        }
    }

    @Test func emptyBatchSucceedsAtOnce() async throws {
        try await withClient(nil) { client in
            let results = try await client.run(Batch())
            #expect(results.count == 0)
        }
    }
}

/// The kind of a failed result's ``CourierError``; `nil` for a success or another error type.
func failureKind<Value>(_ result: Result<Value, any Error>) -> CourierError.Kind? {
    if case .failure(let error) = result { return (error as? CourierError)?.kind }
    return nil
}
