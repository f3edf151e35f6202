import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// A fresh queue database path in its own private folder (mode 0700), removed after `body`.
func withQueuePath<T>(_ body: (String) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cli-queue-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder.appendingPathComponent("queue.sqlite").path)
}

@Suite("courier queue")
struct QueueCommandTests {
    @Test func aDurableFetchPrintsTheResponseWhenTheServerAnswers() async throws {
        try await withServer { server in
            try await withQueuePath { path in
                let run = await courier("fetch", server.url("/idempotent/a").absoluteString, "--data", "x", "--durable", "--queue", path, "--unordered")
                #expect(run.status == 0)
                let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
                #expect(object?["path"] as? String == "/idempotent/a")
                let list = await courier("queue", "list", "--queue", path)
                let fields = list.stdout.split(separator: "\n").first?.split(separator: " ").map(String.init) ?? []
                #expect(fields.count == 5)
                #expect(fields.dropFirst() == ["delivered", "1", "POST", server.url("/idempotent/a").absoluteString])
            }
        }
    }

    @Test func aDurableFetchToADownServerIsQueuedThenRun() async throws {
        let down = try await TestServer.start()
        let port = down.port
        try await down.shutdown()
        try await withQueuePath { path in
            let url = "http://127.0.0.1:\(port)/idempotent/later"
            let run = await courier("fetch", url, "-X", "PUT", "--data", "x", "--durable", "--queue", path, "--tag", "t")
            #expect(run.status == 0)
            #expect(run.stdout.hasPrefix("queued "))
            let id = String(run.stdout.dropFirst("queued ".count)).trimmingCharacters(in: .whitespacesAndNewlines)
            let list = await courier("queue", "list", "--queue", path)
            #expect(list.stdout == "\(id) pending 1 PUT \(url)\n")
            let early = await courier("queue", "run", "--queue", path, "--deadline", "0.3")
            #expect(early.status == ExitStatus.queueNotEmpty.rawValue)
            let server = try await TestServer.start(port: port)
            let late = await courier("queue", "run", "--queue", path, "--deadline", "60")
            try await server.shutdown()
            #expect(late.status == 0)
            #expect(late.stdout.contains("delivered \(id) 201"))
            #expect(server.ledger.entries.count == 1)
            let dropped = await courier("queue", "drop", id, "--queue", path)
            #expect(dropped.stdout == "dropped \(id)\n")
            #expect(await courier("queue", "list", "--queue", path).stdout.isEmpty)
            let unknown = await courier("queue", "retry", id, "--queue", path)
            #expect(unknown.status == ExitStatus.queue.rawValue)
        }
    }

    @Test func aCorruptedQueueFileIsAClearError() async throws {
        try await withQueuePath { path in
            try Data(repeating: 0x2A, count: 4096).write(to: URL(fileURLWithPath: path))
            let run = await courier("queue", "list", "--queue", path)
            #expect(run.status == ExitStatus.queue.rawValue)
            #expect(run.stderr.hasPrefix("courier: the queue database at \(path) could not be"), "\(run.stderr)")
            #expect(run.stderr.contains("is not a queue database or is damaged"), "\(run.stderr)")
            #expect(readsAsPlainWords(run.stderr), "\(run.stderr)")
        }
    }
}
