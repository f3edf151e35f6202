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
                                let body = RequestBody.stream(length: 6) {
                                    AsyncThrowingStream { continuation in
                                        continuation.yield(Data("abc".utf8))
                                        continuation.yield(Data("def".utf8))
                                        continuation.finish()
                                    }
                                }
                                var request = Request<Response>(method: .post, path: index % 3 == 0 ? "/status/404" : "/post?w=\(worker)", body: body)
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

    /// A server that answers 200 as soon as it has the head, then reads the body: each
    /// response comes once the body has gone whole, and the one connection the client may open
    /// serves every request in turn (a connection still waiting for the end of a body would
    /// make the next request wait for it until the connect timeout).
    @Test func aSuccessSentBeforeTheBodyEndsLeavesTheConnectionToTheNextRequest() async throws {
        let server = try await FaultServer.start(.answerBeforeBody)
        do {
            try await withClient(
                nil,
                configure: {
                    $0.limits.maximumConnectionsPerHost = 1; $0.timeouts.connect = .seconds(30)
                }
            ) { client in
                for kind in ["stream", "file", "stream", "file"] {
                    var request = Request<Response>(method: .post, path: server.url.appendingPathComponent("upload").absoluteString, body: try Self.slowBody(kind))
                    request.validators = []
                    let response = try await client.send(request)
                    #expect(response.status == 200)
                    #expect(response.body == Data("ok".utf8))
                }
            }
            #expect(server.acceptedConnections == 1)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    /// A body whose end comes well after its first piece (streamed), or a multipart form.
    private static func slowBody(_ kind: String) throws -> RequestBody {
        guard kind == "stream" else {
            var form = MultipartForm()
            form.addField(String(repeating: "x", count: 300_000), named: "field")
            return try .multipart(form)
        }
        return RequestBody.stream(length: 6) {
            AsyncThrowingStream { continuation in
                let task = Task {
                    continuation.yield(Data("abc".utf8))
                    // Room for the answer to arrive before the end of the body does.
                    try? await Task.sleep(for: .milliseconds(200))
                    continuation.yield(Data("def".utf8))
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }
}
