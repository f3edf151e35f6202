import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Cancellation and timeouts")
struct CancellationAndTimeoutTests {
    @Test func cancellingMidBodyFreesTheConnection() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let handle = client.start(CourierRequest<Data>(path: "/drip?numbytes=50&duration=20"))
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
                let after = try await client.send(CourierRequest<Echo>(path: "/get"))
                #expect(after.method == "GET")
            }
        }
    }

    @Test func cancellingTheAwaitingTaskCancelsTheRequest() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let task = Task { try await client.send(CourierRequest<Data>(path: "/gate/held")) }
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

    /// A request from the cooperative pool is handed to its event loop before it starts; a
    /// cancellation may land before, during or after that hand-over, and must win each time.
    @Test(.timeLimit(.minutes(2))) func cancellingWhileTheRequestIsHandedToItsLoopCancelsIt() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                for attempt in 0..<40 {
                    let task = Task { try await client.send(CourierRequest<Data>(path: "/gate/held")) }
                    for _ in 0..<(attempt % 8) { await Task.yield() }
                    task.cancel()
                    let result = await task.result
                    guard case .failure(let error as CourierError) = result else {
                        Issue.record("attempt \(attempt): expected a cancellation error, got \(result)")
                        return
                    }
                    #expect(error.kind == .cancelled, "attempt \(attempt)")
                }
                // Every cancelled exchange let go of its connection: one more request is answered.
                let after = try await client.send(CourierRequest<Echo>(path: "/get"))
                #expect(after.method == "GET")
            }
        }
    }

    @Test func cancelledBeforeStartNeverReachesTheServer() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let task = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await client.send(CourierRequest<Data>(path: "/get"))
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
                var request = CourierRequest<Data>(path: "/gate/silent")  // answered only when the server stops
                request.timeout = .milliseconds(200)
                let error = await courierError { _ = try await client.send(request) }
                #expect(error?.kind == .timeout)
            }
        }
    }

    @Test func clientWideTotalTimeout() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.timeouts.total = .milliseconds(200) }) { client in
                let error = await courierError { _ = try await client.send(CourierRequest<Data>(path: "/drip?numbytes=5&duration=5")) }
                #expect(error?.kind == .timeout)
            }
        }
    }

    @Test func readTimeoutFiresOnASilentServer() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.timeouts.read = .milliseconds(200) }) { client in
                let error = await courierError { _ = try await client.send(CourierRequest<Data>(path: "/gate/silent")) }
                #expect(error?.kind == .timeout)
            }
        }
    }
}

@Suite("Read timeout against the in-process server")
struct ReadTimeoutIntegrationTests {
    @Test func aBodyThatKeepsComingOutlastsTheReadTimeout() async throws {
        // Twenty-four bytes 500 ms apart under a 10 s read timeout: the server paces the body
        // over 11.5 s or more, longer than the timeout, but is never silent for a twentieth as
        // long (a margin for a machine loaded by the rest of the suite and a second test
        // process: under a 5 s timeout, URLSession on Linux once saw 5 s pass between pieces).
        try await withServer { server in
            try await withClient(server, configure: { $0.timeouts.read = .seconds(10) }) { client in
                let body = try await client.send(CourierRequest<Data>(path: "/drip?numbytes=24&duration=12"))
                #expect(body == Data(repeating: UInt8(ascii: "*"), count: 24))
            }
        }
    }

    @Test func aServerThatFallsSilentMidBodyTimesOut() async throws {
        // The head and a first byte arrive at once; the next byte would come 5 s later.
        try await withServer { server in
            try await withClient(server, configure: { $0.timeouts.read = .milliseconds(300) }) { client in
                let error = await courierError { _ = try await client.send(CourierRequest<Data>(path: "/drip?numbytes=2&duration=10")) }
                #expect(error?.kind == .timeout)
                #expect(error?.description.contains("read timeout") == true)
            }
        }
    }

    @Test func aSlowStreamingReaderIsNotBlamedOnTheServer() async throws {
        // The server sends 1 MiB at once; the reader holds its first piece for four read
        // timeouts (or longer, on a loaded machine) before taking the rest. Nothing more is read meanwhile, and that silence is
        // the reader's own.
        try await withServer { server in
            var settings = TransportConfiguration()
            settings.readTimeout = .seconds(2)
            let transport = CourierAsyncHTTPClientTransport(configuration: settings)
            do {
                let received = try await transport.stream(CourierHTTPRequest(method: .get, url: server.url("/bytes/1048576")), deadline: nil) { response in
                    var iterator = response.body.makeAsyncIterator()
                    var count = try await iterator.next()?.count ?? 0
                    try await Task.sleep(for: .seconds(8))
                    while let piece = try await iterator.next() { count += piece.count }
                    return count
                }
                #expect(received == 1_048_576)
            } catch {
                Issue.record("the stream failed: \(error)")
            }
            try await transport.shutdown()
        }
    }
}

@Suite("Read timeout of streamed responses")
struct StreamedReadTimeoutTests {
    @Test func aStreamedResponseFromASilentServerTimesOut() async throws {
        try await withServer { server in
            var settings = TransportConfiguration()
            settings.readTimeout = .milliseconds(300)
            let transport = CourierAsyncHTTPClientTransport(configuration: settings)
            let error = await courierError {
                _ = try await transport.stream(CourierHTTPRequest(method: .get, url: server.url("/gate/silent")), deadline: nil) { $0.head.status }
            }
            #expect(error?.kind == .timeout)
            try await transport.shutdown()
        }
    }
}
