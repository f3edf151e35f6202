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
                let (first, firstLoop, other) = try await twoExecutorsOnDifferentLoops(of: client)
                /// Sends a request from a task on `executor`; returns the loop it resumed on.
                func send(on executor: any TaskExecutor) async throws -> ObjectIdentifier? {
                    try await withTaskExecutorPreference(executor) {
                        _ = try await client.send(CourierRequest<Data>(path: "/bytes/10"))
                        return MultiThreadedEventLoopGroup.currentEventLoop.map { ObjectIdentifier($0) }
                    }
                }
                // Tasks on one loop open a connection there, and reuse it.
                for _ in 0..<3 { #expect(try await send(on: first) == firstLoop) }
                #expect(server.acceptedConnections == 1)
                // A request from the pool takes the idle connection, wherever it is.
                _ = try await client.send(CourierRequest<Data>(path: "/bytes/10"))
                #expect(server.acceptedConnections == 1)
                // Tasks on another loop do not take it: they open one on their loop.
                for _ in 0..<3 {
                    let loop = try await send(on: other)
                    #expect(loop != nil && loop != firstLoop)
                }
                #expect(server.acceptedConnections == 2)
                // Each loop's tasks keep to their own.
                #expect(try await send(on: first) == firstLoop)
                #expect(server.acceptedConnections == 2)
                #expect(server.openConnections == 2)
            }
            // Shutting the client down closes both loops' connections.
            #expect(await eventually { server.openConnections == 0 })
        }
    }
}
