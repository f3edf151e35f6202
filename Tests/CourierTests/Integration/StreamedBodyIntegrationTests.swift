import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Streamed request bodies")
struct StreamedBodyIntegrationTests {
    /// 240 streamed bodies of known length, 8 at a time, a third of them answered 404: every
    /// one gets its response, and no connection is lost to the pool (a lost one would make later
    /// requests wait for a free connection until they time out).
    @Test func manyStreamedBodiesOfKnownLengthEachGetTheirResponse() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
                    for worker in 0..<8 {
                        group.addTask {
                            var statuses: [Int] = []
                            for index in 0..<30 {
                                let body = CourierRequestBody.stream(length: 6) {
                                    AsyncThrowingStream { continuation in
                                        continuation.yield(Data("abc".utf8))
                                        continuation.yield(Data("def".utf8))
                                        continuation.finish()
                                    }
                                }
                                var request = CourierRequest<CourierResponse>(method: .post, path: index % 3 == 0 ? "/status/404" : "/post?w=\(worker)", body: body)
                                request.validators = []
                                statuses.append(try await client.send(request).status)
                            }
                            return statuses
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                #expect(statuses.count == 240)
                #expect(statuses.filter { $0 == 404 }.count == 80)
                #expect(statuses.filter { $0 == 200 }.count == 160)
                let posted = server.receivedRequests.filter { $0.path == "/post" }
                #expect(posted.allSatisfy { $0.body == Array("abcdef".utf8) })
            }
        }
    }
}
