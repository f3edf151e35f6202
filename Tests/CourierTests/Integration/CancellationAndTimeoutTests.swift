import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Cancellation and timeouts")
struct CancellationAndTimeoutTests {
    @Test func cancellingMidBodyFreesTheConnection() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let handle = client.start(Request<Data>(path: "/drip?numbytes=50&duration=20"))
                // Wait until the request is on the wire and the server is dripping the body. (An
                // open connection alone is not enough: a request cancelled while its new
                // connection is being handed over leaves that connection idle in the pool.)
                #expect(await eventually { server.receivedRequests.count == 1 && server.openConnections == 1 })
                handle.cancel()
                let error = await courierError { _ = try await handle.value }
                #expect(error?.kind == .cancelled)
                #expect(handle.state == .cancelled)
                #expect(await eventually(attempts: 1000) { server.openConnections == 0 }, "the cancelled connection stayed open")
                // The client still works afterwards.
                let after = try await client.send(Request<Echo>(path: "/get"))
                #expect(after.method == "GET")
            }
        }
    }

    @Test func cancellingTheAwaitingTaskCancelsTheRequest() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let task = Task { try await client.send(Request<Data>(path: "/delay/10")) }
                #expect(await eventually { server.receivedRequests.count == 1 })
                task.cancel()
                let result = await task.result
                guard case .failure(let error as CourierError) = result else {
                    Issue.record("expected a cancellation error, got \(result)")
                    return
                }
                #expect(error.kind == .cancelled)
                #expect(await eventually(attempts: 1000) { server.openConnections == 0 })
            }
        }
    }

    @Test func cancelledBeforeStartNeverReachesTheServer() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let task = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await client.send(Request<Data>(path: "/get"))
                }
                let result = await task.result
                guard case .failure(let error as CourierError) = result else {
                    Issue.record("expected cancellation, got \(result)")
                    return
                }
                #expect(error.kind == .cancelled)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }

    @Test func totalTimeoutCoversTheWholeRequest() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var request = Request<Data>(path: "/delay/5")
                request.timeout = .milliseconds(200)
                let error = await courierError { _ = try await client.send(request) }
                #expect(error?.kind == .timeout)
            }
        }
    }

    @Test func clientWideTotalTimeout() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.timeouts.total = .milliseconds(200) }) { client in
                let error = await courierError { _ = try await client.send(Request<Data>(path: "/drip?numbytes=5&duration=5")) }
                #expect(error?.kind == .timeout)
            }
        }
    }

    @Test func readTimeoutFiresOnASilentServer() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.timeouts.read = .milliseconds(200) }) { client in
                let error = await courierError { _ = try await client.send(Request<Data>(path: "/delay/5")) }
                #expect(error?.kind == .timeout)
            }
        }
    }
}
