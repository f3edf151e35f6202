import Courier
import CourierDemoServer
import CourierQueue
import Foundation

extension DemoSteps {
    /// A durable request queued while its server is down, delivered when the server comes back
    /// on the same port.
    func runQueue() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let offline = try await TestServer.start()
        let port = offline.port
        try await offline.shutdown()
        var configuration = QueueConfiguration(path: folder.appendingPathComponent("queue.sqlite").path)
        configuration.retryPolicy = CourierRetryPolicy(maximumAttempts: 20, baseDelay: .milliseconds(50), maximumDelay: .milliseconds(500))
        let queue = try await client.openQueue(configuration)
        do {
            let note = CourierRequest<Void>(method: .post, path: "http://127.0.0.1:\(port)/idempotent/notes", body: .text("posted offline"))
            let handle = try await queue.enqueue(note, tag: "note")
            let first = try await handle.firstAttempt()
            say("server down: record \(first.id.prefix(8))… is \(first.state) after \(first.attempts) attempt, key \(first.request.idempotencyKey.prefix(8))…")
            let back = try await TestServer.start(port: port, ledger: offline.ledger)
            await queue.networkIsBack()
            let record = try await handle.outcome()
            try await back.shutdown()
            let applied = back.ledger.entries[record.request.idempotencyKey]?.applied ?? 0
            say("server back: \(record.state) with \(record.outcome?.status ?? 0) after \(record.attempts) attempts; the server applied it \(applied) time")
        } catch {
            await queue.close()
            throw error
        }
        await queue.close()
    }
}
