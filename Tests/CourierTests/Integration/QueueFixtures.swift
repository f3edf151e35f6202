import Courier
import CourierQueue
import CourierTesting
import Foundation
import NIOConcurrencyHelpers

/// A fresh private folder (mode 0700) for a queue database, removed after `body`.
func withQueueFolder<T>(_ body: (String) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-queue-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder.appendingPathComponent("queue.sqlite").path)
}

/// A queue configuration for tests: short backoffs, so that waiting records are tried again soon.
func testQueueConfiguration(path: String) -> QueueConfiguration {
    var configuration = QueueConfiguration(path: path)
    configuration.retryPolicy = CourierRetryPolicy(maximumAttempts: 100, baseDelay: .milliseconds(20), maximumDelay: .milliseconds(200))
    configuration.probeTimeout = .seconds(2)
    return configuration
}

/// Opens a queue at `path` on a new client, runs `body`, and closes both.
func withQueue<T>(
    path: String,
    configure: (inout QueueConfiguration) -> Void = { _ in },
    _ body: (DurableQueue) async throws -> T
) async throws -> T {
    try await withQueue(path: path, client: ClientConfiguration(), configure: configure, body)
}

/// Opens a queue at `path` with a client of `clientConfiguration`, runs `body`, and closes both.
func withQueue<T>(
    path: String,
    client clientConfiguration: ClientConfiguration,
    configure: (inout QueueConfiguration) -> Void = { _ in },
    _ body: (DurableQueue) async throws -> T
) async throws -> T {
    var configuration = testQueueConfiguration(path: path)
    configure(&configuration)
    return try await CourierClient.withClient(configuration: clientConfiguration) { client in
        let queue = try await client.openQueue(configuration)
        do {
            let result = try await body(queue)
            await queue.close()
            return result
        } catch {
            await queue.close()
            throw error
        }
    }
}

/// A port on 127.0.0.1 where nothing listens, reserved so that no other test's server takes it;
/// `TestServer.start(port:)` may still bring a server up on it.
func vacatedPort() throws -> ReservedPort {
    try ReservedPort()
}

/// A wall clock the test moves by hand.
final class ManualDate: Sendable {
    private let value = NIOLockedValueBox(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { value.withLockedValue { $0 } }
    func advance(by seconds: TimeInterval) { value.withLockedValue { $0 = $0.addingTimeInterval(seconds) } }
}

/// The process id of a process that ran and has exited, for a lease whose holder is gone.
func exitedProcessID() throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    return process.processIdentifier
}
