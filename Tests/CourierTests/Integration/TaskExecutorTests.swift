import Courier
import CourierTesting
import Foundation
import NIOPosix
import Testing

@Suite("Client.makeTaskExecutor()")
struct TaskExecutorTests {
    @Test func aTaskOnTheExecutorIsResumedOnAnEventLoopAfterEachResponse() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let onLoop = try await withTaskExecutorPreference(client.makeTaskExecutor()) {
                    var resumedOnLoop: [Bool] = []
                    for _ in 0..<5 {
                        let response = try await client.response(for: Request<Data>(path: "/bytes/100"))
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
                let response = try await client.response(for: Request<Data>(path: "/bytes/100"))
                #expect(response.body.count == 100)
                #expect(MultiThreadedEventLoopGroup.currentEventLoop == nil)
            }
        }
    }
}
