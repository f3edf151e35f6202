import Courier
import CourierTesting
import Foundation
import Logging
import Testing

@testable import Courier
@testable import CourierQueue

/// Credentials of durable requests: taken out before the record is written, supplied again at
/// delivery, and a record that lacks them waits instead of being sent without them.
@Suite("Durable queue credentials")
struct DurableQueueCredentialsTests {
    static func note(to url: URL) -> CourierRequest<Void> {
        CourierRequest<Void>(method: .post, path: url.absoluteString, body: .text("note"))
    }

    @Test func aTokenInAHeaderIsNeverWrittenAndComesFromTheSourceAtDelivery() async throws {
        let reserved = try vacatedPort()
        defer { withExtendedLifetime(reserved) {} }
        let token = "hdr-\(UUID().uuidString)"
        try await withQueueFolder { base in
            // The queue makes its own folder.
            let path = (base as NSString).deletingLastPathComponent + "/own/queue.sqlite"
            var request = Self.note(to: reserved.url("/idempotent/header"))
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            let id = try await withQueue(path: path) { queue in
                let first = try await queue.enqueue(request).firstAttempt()
                #expect(first.state == .pending, "the host is down")
                #expect(first.request.credentialHeaderNames == ["Authorization"])
                #expect(first.request.headers["Authorization"] == nil)
                #expect(FileManager.default.fileExists(atPath: path + "-wal"))
                #expect(!queueFilesContain(path, token), "while the queue is open")
                return first.id
            }
            #expect(!queueFilesContain(path, token), "once it is closed")
            #expect(modeBits(path) == 0o600)
            #expect(modeBits((path as NSString).deletingLastPathComponent) == 0o700)

            let server = try await TestServer.start(port: reserved.port)
            let source = SwitchableToken()
            source.set(token)
            let record = try await withQueue(path: path, configure: { $0.credentials = source }) { queue in
                #expect(try await queue.run(deadline: .seconds(300)))
                return try await queue.record(id: id)
            }
            try await server.shutdown()
            #expect(record?.state == .delivered)
            #expect(server.receivedRequests.map { $0.header("Authorization") } == ["Bearer \(token)"])
            #expect(!queueFilesContain(path, token))
        }
    }

    @Test func theClientsCredentialsAreNotWrittenAndTheDeliveringClientsAreUsed() async throws {
        let reserved = try vacatedPort()
        defer { withExtendedLifetime(reserved) {} }
        let token = "cli-\(UUID().uuidString)"
        let url = reserved.url("/idempotent/client")
        try await withQueueFolder { path in
            let id = try await withQueue(path: path, client: bearerConfiguration(token, for: url)) { queue in
                let first = try await queue.enqueue(Self.note(to: url)).firstAttempt()
                #expect(first.request.hadClientCredentials)
                #expect(first.request.credentialHeaderNames.isEmpty)
                #expect(!queueFilesContain(path, token))
                return first.id
            }
            #expect(!queueFilesContain(path, token))
            let server = try await TestServer.start(port: reserved.port)
            let record = try await withQueue(path: path, client: bearerConfiguration(token, for: url)) { queue in
                #expect(try await queue.run(deadline: .seconds(300)))
                return try await queue.record(id: id)
            }
            try await server.shutdown()
            #expect(record?.state == .delivered)
            #expect(server.receivedRequests.map { $0.header("Authorization") } == ["Bearer \(token)"])
        }
    }

    @Test func aRecordMissingItsCredentialsWaitsUnsentThenGoesOnceTheyAreGiven() async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                let url = server.url("/idempotent/later")
                let token = "later-\(UUID().uuidString)"
                let id = try await withQueue(path: path, client: bearerConfiguration(token, for: url), configure: { $0.deliversOnOpen = false }) { queue in
                    try await queue.enqueue(Self.note(to: url)).id
                }
                // A client without credentials and a queue without a source, which looks again
                // only after a minute: the record is seen waiting, not between two turns.
                let waited = try await withQueue(path: path, configure: { $0.retryPolicy.maximumDelay = .seconds(60) }) { queue in
                    let events = await queue.events()
                    #expect(try await queue.run(deadline: .seconds(30)) == false)
                    var missing: [String]?
                    for await event in events {
                        if case .needsCredentials(let record, let names) = event, record.id == id {
                            missing = names
                            break
                        }
                    }
                    #expect(missing == ["Authorization"])
                    return try await queue.record(id: id)
                }
                #expect(server.receivedRequests.isEmpty)
                #expect(waited?.state == .pending)
                #expect(waited?.attempts == 0)
                #expect(waited?.outcome?.missingCredentials == ["Authorization"])
                let failure = waited?.outcome?.failure ?? ""
                #expect(failure.hasPrefix("missingCredentials: "))
                #expect(failure.contains(waited?.request.origin ?? "?"))
                #expect(failure.contains("QueueConfiguration.credentials"))

                let record = try await withQueue(path: path, client: bearerConfiguration(token, for: url)) { queue in
                    #expect(try await queue.run(deadline: .seconds(300)))
                    return try await queue.record(id: id)
                }
                #expect(record?.state == .delivered)
                #expect(record?.attempts == 1)
                #expect(server.receivedRequests.map { $0.header("Authorization") } == ["Bearer \(token)"])
            }
        }
    }

    @Test func aWaitingRecordGoesWhenTheAppSaysCredentialsChanged() async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                let source = SwitchableToken()
                try await withQueue(
                    path: path,
                    configure: { configuration in
                        configuration.credentials = source
                        // Long enough that only credentialsChanged() brings the record back.
                        configuration.retryPolicy.maximumDelay = .seconds(3600)
                    }
                ) { queue in
                    // As if it came from a process that ended: only the header's name is left.
                    var request = QueuedRequest(method: .post, url: server.url("/idempotent/changed"), body: .data(Data("c".utf8)))
                    request.credentialHeaderNames = ["Authorization"]
                    let handle = try await queue.enqueue(request)
                    let first = try await handle.firstAttempt()
                    #expect(first.state == .pending && first.attempts == 0)
                    #expect(first.outcome?.missingCredentials == ["Authorization"])
                    source.set("fresh")
                    await queue.credentialsChanged()
                    let record = try await handle.outcome()
                    #expect(record.state == .delivered)
                    #expect(record.attempts == 1)
                    #expect(source.asked == 2)
                    #expect(server.receivedRequests.map { $0.header("Authorization") } == ["Bearer fresh"])
                }
            }
        }
    }

    @Test func aRecordEnqueuedWithoutCredentialsGetsNoneFromTheDeliveringClient() async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                let url = server.url("/idempotent/anonymous")
                let id = try await withQueue(path: path, configure: { $0.deliversOnOpen = false }) { queue in
                    try await queue.enqueue(Self.note(to: url)).id
                }
                let record = try await withQueue(path: path, client: bearerConfiguration("not-for-this", for: url)) { queue in
                    #expect(try await queue.run(deadline: .seconds(300)))
                    return try await queue.record(id: id)
                }
                #expect(record?.state == .delivered)
                #expect(server.receivedRequests.count == 1)
                #expect(server.receivedRequests.first?.header("Authorization") == nil)
            }
        }
    }

    @Test func theEnqueuingQueueSendsTheValuesItHoldsAndSensitiveHeadersAreTakenOutToo() async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                var configuration = ClientConfiguration()
                configuration.sensitiveHeaders = ["X-Api-Key"]
                let record = try await withQueue(path: path, client: configuration) { queue in
                    var request = Self.note(to: server.url("/idempotent/held"))
                    request.headers.add(name: "Authorization", value: "Bearer held-token")
                    request.headers.add(name: "Cookie", value: "session=held-cookie")
                    request.headers.add(name: "X-Api-Key", value: "held-key")
                    request.headers.add(name: "X-Session", value: "held-session")
                    request.headers.add(name: "X-Plain", value: "kept")
                    request.sensitiveHeaders = ["X-Session"]
                    let record = try await queue.enqueue(request).outcome()
                    for secret in ["held-token", "held-cookie", "held-key", "held-session"] {
                        #expect(!queueFilesContain(path, secret), "\(secret)")
                    }
                    #expect(queueFilesContain(path, "kept"), "the check reads the bytes the queue wrote")
                    return record
                }
                #expect(record.state == .delivered)
                #expect(Set(record.request.credentialHeaderNames) == ["Authorization", "Cookie", "X-Api-Key", "X-Session"])
                let sent = try #require(server.receivedRequests.first)
                #expect(sent.header("Authorization") == "Bearer held-token")
                #expect(sent.header("Cookie") == "session=held-cookie")
                #expect(sent.header("X-Api-Key") == "held-key")
                #expect(sent.header("X-Session") == "held-session")
                #expect(sent.header("X-Plain") == "kept")
            }
        }
    }

    @Test func aSourceThatFailsLeavesTheRecordWaitingWithItsReason() async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                struct Offline: Error, CustomStringConvertible {
                    var description: String { "the keychain is locked" }
                }
                let record = try await withQueue(path: path, configure: { $0.credentials = QueueCredentials { _, _ in throw Offline() } }) { queue in
                    var request = QueuedRequest(method: .post, url: server.url("/idempotent/locked"))
                    request.credentialHeaderNames = ["X-Api-Key"]
                    return try await queue.enqueue(request).firstAttempt()
                }
                #expect(record.state == .pending)
                #expect(record.outcome?.failure?.contains("the keychain is locked") == true)
                #expect(record.outcome?.missingCredentials == ["X-Api-Key"])
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }

    /// A row as a queue wrote it before credential names existed, written with plain SQL.
    @Test func aRecordWrittenBeforeCredentialNamesIsReadAndSentAsBefore() async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                let url = server.url("/idempotent/old")
                try await withQueue(path: path, configure: { $0.deliversOnOpen = false }) { _ in }
                let store = try await SQLiteQueueStore.open(path: path, logger: Logger(label: "test"))
                let request = """
                    {"method":"POST","url":"\(url.absoluteString)","headers":[["Idempotency-Key","old-key"]],\
                    "body":{"data":{"_0":"b2xk"}},"idempotencyKey":"old-key","isOrdered":true}
                    """
                _ = try await store.run(
                    """
                    INSERT INTO courier_queue (id, origin, is_ordered, state, attempts, created_at, next_attempt_at, request)
                    VALUES ('old-record', '\(RedirectStateMachine.origin(of: url))', 1, 'pending', 0, 0, 0, CAST('\(request)' AS BLOB))
                    """,
                    action: "written"
                )
                await store.close()
                // It was sent with the client's credentials then, and still is.
                let record = try await withQueue(path: path, client: bearerConfiguration("old-token", for: url)) { queue in
                    #expect(try await queue.run(deadline: .seconds(300)))
                    return try await queue.record(id: "old-record")
                }
                #expect(record?.state == .delivered)
                #expect(record?.request.credentialHeaderNames == [])
                #expect(record?.request.hadClientCredentials == false)
                #expect(server.ledger.entries["old-key"]?.body == Data("old".utf8))
                #expect(server.receivedRequests.first?.header("Authorization") == "Bearer old-token")
            }
        }
    }
}
