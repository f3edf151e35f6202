import Courier
import CourierQueue
import Foundation
import Testing

/// What `print` shows of the queue's public values: one readable line each, never a dump of
/// the struct.
@Suite("Queue values print readably")
struct QueueDescriptionTests {
    let recorded = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("an outcome prints its status, its size or its failure, and when it was recorded")
    func outcomes() {
        let delivered = QueueOutcome(status: 201, reasonPhrase: "Created", body: Data("ok".utf8), recordedAt: recorded)
        #expect(delivered.description == "201 Created, 2 bytes (recorded 2027-01-15T08:00:00Z)")
        let failed = QueueOutcome(status: nil, failure: "connectionFailed: refused", recordedAt: recorded)
        #expect(failed.description == "failed: connectionFailed: refused (recorded 2027-01-15T08:00:00Z)")
        let waiting = QueueOutcome(status: nil, failure: "no credential", recordedAt: recorded, missingCredentials: ["Authorization"])
        #expect(waiting.description.hasPrefix("not sent: missing Authorization"))
        let hostile = QueueOutcome(status: 200, reasonPhrase: "OK\u{1B}[2J", recordedAt: recorded)
        #expect(!hostile.description.contains("\u{1B}"), "a server's text cannot drive the terminal")
    }

    @Test("a record prints its id, state, request, attempts and outcome")
    func records() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-queue-description-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await CourierClient.withClient { client in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let queue = try await client.openQueue(QueueConfiguration(path: folder.appendingPathComponent("queue.sqlite").path))
            let handle = try await queue.enqueue(QueuedRequest(method: .post, url: URL(string: "http://127.0.0.1:9/orders")!))
            let record = try #require(try await queue.record(id: handle.id))
            // The queue may already be sending it: its state and attempts are whatever they are.
            let state = record.state.rawValue
            let attempts = "\(record.attempts) attempt\(record.attempts == 1 ? "" : "s")"
            #expect(record.description.hasPrefix("\(handle.id) \(state): POST http://127.0.0.1:9/orders, \(attempts)"))
            #expect(!"\(record)".contains("QueueRecord("))
            await queue.close()
        }
    }
}
