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

    /// The kinds of streamed body, each 256 MiB produced on demand.
    enum LargeBody: String, CaseIterable, Sendable {
        case stream, written

        var body: CourierRequestBody {
            let piece = Data(repeating: 7, count: 64 * 1024)
            switch self {
            case .stream:
                return .stream(length: nil) {
                    let produced = Counter()
                    return AsyncThrowingStream(unfolding: { produced.next() < 4096 ? piece : nil })
                }
            case .written:
                return .writing { writer in
                    for _ in 0..<4096 { try await writer.write(piece) }
                    return [:]
                }
            }
        }
    }

    /// A server that refuses an upload as soon as it has the head, and closes: the answer is
    /// delivered, whatever was left of the body is dropped, and nothing waits for ever on a
    /// body that no connection takes any more.
    @Test("an early refusal of a large streamed upload is delivered", arguments: LargeBody.allCases, ["", "big!"])
    func earlyRefusalIsDelivered(kind: LargeBody, refusal: String) async throws {
        let answer = "HTTP/1.1 413 Content Too Large\r\nContent-Length: \(refusal.utf8.count)\r\nConnection: close\r\n\r\n\(refusal)"
        let server = try await FaultServer.start(.raw(Array(answer.utf8)))
        do {
            try await withClient(nil) { client in
                var request = CourierRequest<CourierResponse>(method: .post, path: server.url.appendingPathComponent("upload").absoluteString, body: kind.body)
                request.validators = []
                let response = try await client.send(request)
                #expect(response.status == 413)
                #expect(response.body == Data(refusal.utf8))
            }
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }
}

/// Counts on demand, from any task.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// The count before this call.
    func next() -> Int {
        lock.withLock {
            defer { count += 1 }
            return count
        }
    }
}
