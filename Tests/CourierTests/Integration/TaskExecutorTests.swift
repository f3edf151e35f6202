import Courier
import CourierTesting
import Foundation
import NIOPosix
import Testing

@Suite("CourierClient.makeTaskExecutor()")
struct TaskExecutorTests {
    @Test func aTaskOnTheExecutorIsResumedOnAnEventLoopAfterEachResponse() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let onLoop = try await withTaskExecutorPreference(client.makeTaskExecutor()) {
                    var resumedOnLoop: [Bool] = []
                    for _ in 0..<5 {
                        let response = try await client.response(for: CourierRequest<Data>(path: "/bytes/100"))
                        #expect(response.body.count == 100)
                        resumedOnLoop.append(MultiThreadedEventLoopGroup.currentEventLoop != nil)
                    }
                    return resumedOnLoop
                }
                #expect(onLoop == [true, true, true, true, true])
            }
        }
    }

    @Test func aTaskWithoutItIsResumedOffTheEventLoops() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let response = try await client.response(for: CourierRequest<Data>(path: "/bytes/100"))
                #expect(response.body.count == 100)
                #expect(MultiThreadedEventLoopGroup.currentEventLoop == nil)
            }
        }
    }

    @Test func aTaskOnAnEventLoopKeepsConnectionsOfItsOwnLoop() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                // A request from the pool leaves an idle connection behind...
                _ = try await client.send(CourierRequest<Data>(path: "/bytes/10"))
                #expect(server.acceptedConnections == 1)
                // ...which tasks on a loop do not take: they open one on their loop, and reuse it.
                let executor = client.makeTaskExecutor()
                var loops: Set<ObjectIdentifier?> = []
                for _ in 0..<3 {
                    loops.insert(
                        try await withTaskExecutorPreference(executor) {
                            _ = try await client.send(CourierRequest<Data>(path: "/bytes/10"))
                            return MultiThreadedEventLoopGroup.currentEventLoop.map { ObjectIdentifier($0) }
                        })
                }
                #expect(loops.count == 1 && loops.first! != nil)
                #expect(server.acceptedConnections == 2)
                // The pool's callers still reuse theirs.
                _ = try await client.send(CourierRequest<Data>(path: "/bytes/10"))
                #expect(server.acceptedConnections == 2)
                #expect(server.openConnections == 2)
            }
            // Shutting the client down closes the loop's connection too.
            #expect(await eventually { server.openConnections == 0 })
        }
    }
}
