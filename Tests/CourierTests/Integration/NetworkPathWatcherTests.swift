#if os(Linux)
import Courier
@testable import CourierQueue
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The queue's network watcher on Linux, driven by real link and address changes: the tests in
/// ``InsideANetworkNamespaceTests`` run in a child test process that `unshare -n` puts in a
/// network namespace of its own, where they may add, flap and remove interfaces without
/// touching this machine's. Its loopback is brought up before the child starts, since
/// Foundation opens a loopback socket of its own when a process starts another.
@Suite("The network watcher, in a network namespace of its own")
struct NetworkPathWatcherTests {
    /// Whether this process may make a network namespace with a veth pair in it: it runs as
    /// root, as CI does, `unshare` and `ip` (iproute2, which `.ci/run` installs) are on the
    /// PATH, and the kernel allows both.
    static let namespacesAvailable: Bool = {
        guard geteuid() == 0 else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["unshare", "-n", "ip", "link", "add", "p0", "type", "veth", "peer", "name", "p1"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    @Test(.enabled(if: namespacesAvailable, "needs root, unshare, ip and veth links"), .timeLimit(.minutes(10)))
    func theWatcherAndTheQueueFollowRealLinkChanges() async throws {
        let run = try await TestBinaryRun.run(
            ["--filter", "CourierTests\\.InsideANetworkNamespaceTests\\b"], environment: [networkNamespaceVariable: "1"],
            launcher: ["unshare", "-n", "sh", "-c", "ip link set lo up && exec \"$0\" \"$@\""]
        )
        #expect(run.status == 0, "the tests inside the namespace failed:\n\(run.failures)\n\(run.output.suffix(3000))")
        // They ran, rather than being skipped for want of the namespace.
        #expect(run.testCount == 2, "\(run.output.suffix(3000))")
        #expect(!run.output.contains("skipped"), "\(run.output.suffix(3000))")
    }
}

/// Set in the child test process that runs in a network namespace of its own.
private let networkNamespaceVariable = "COURIER_TEST_NETWORK_NAMESPACE"

/// Run by ``NetworkPathWatcherTests`` only, in a network namespace where this process may
/// change the interfaces; skipped everywhere else. One at a time: they share the namespace.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment[networkNamespaceVariable] == "1", "runs in a namespace of its own"))
struct InsideANetworkNamespaceTests {
    /// A record that found its host down waits years for its next attempt (the backoff's jitter
    /// takes a random part of them); a link coming up makes it due at once, with no call to
    /// `networkIsBack()`.
    @Test func aLinkComingUpSendsWhatWaitsAtOnce() async throws {
        #expect(!NetworkInterface.offerPath(NetworkInterface.current()), "a new namespace has only its loopback")
        let reserved = try vacatedPort()
        defer { withExtendedLifetime(reserved) {} }
        let ledger = IdempotencyLedger()
        try await withQueueFolder { path in
            try await withQueue(path: path, configure: { $0.retryPolicy = Self.years }) { queue in
                let request = CourierRequest<Void>(method: .post, path: "http://127.0.0.1:\(reserved.port)/idempotent/link", body: .text("l"))
                let handle = try await queue.enqueue(request)
                let first = try await handle.firstAttempt()
                #expect(first.state == .pending && first.nextAttemptAt.timeIntervalSinceNow > 3600, "\(first)")
                let server = try await TestServer.start(port: reserved.port, ledger: ledger)
                try ip("link add v0 type veth peer name v1")
                defer { try? ip("link del v0") }
                try ip("addr add 10.77.0.1/24 dev v0")
                try ip("link set v1 up")
                try ip("link set v0 up")
                let sent = try await queue.run(deadline: .seconds(300))
                let after = try await queue.record(id: handle.id)
                #expect(sent, "the record was not sent when the link came up: \(String(describing: after))")
                #expect(ledger.entries.count == 1)
                try await server.shutdown()
            }
        }
    }

    /// The watcher calls back each time the path comes back, whether the carrier or the
    /// addresses went away. (That it does not call back while the path stays as it was is
    /// ``PathEdge``'s rule, checked without a namespace.)
    @Test func theWatcherCallsBackEachTimeThePathReturns() async throws {
        try ip("link add w0 type veth peer name w1")
        defer { try? ip("link del w0") }
        try ip("addr add 10.78.0.1/24 dev w0")
        try ip("link set w1 up")
        try ip("link set w0 up")
        // The kernel gives a veth its carrier a moment after both ends are up: the watcher
        // starts once the path is there, so that the first return it reports is the test's.
        #expect(await Self.wait { NetworkInterface.offerPath(NetworkInterface.current()) })
        let signals = NIOLockedValueBox(0)
        let watcher = try #require(NetworkPathWatcher.start { signals.withLockedValue { $0 += 1 } })
        defer { watcher.stop() }
        #expect(watcher.sawUsablePath)
        // Each loss is waited for until the watcher has seen it: changes that come together are
        // one reading, and a path lost and back within it was never lost.
        // The peer going down takes the carrier away.
        try ip("link set w1 down")
        #expect(await Self.wait { !watcher.sawUsablePath })
        try ip("link set w1 up")
        #expect(await Self.wait { signals.withLockedValue { $0 } == 1 })
        // The addresses gone, then one back.
        try ip("addr flush dev w0")
        #expect(await Self.wait { !watcher.sawUsablePath })
        try ip("addr add 10.78.0.1/24 dev w0")
        #expect(await Self.wait { signals.withLockedValue { $0 } == 2 })
        // The interface itself down and up.
        try ip("link set w0 down")
        #expect(await Self.wait { !watcher.sawUsablePath })
        try ip("link set w0 up")
        #expect(await Self.wait { signals.withLockedValue { $0 } == 3 })
    }

    static let years = CourierRetryPolicy(maximumAttempts: 100, baseDelay: .seconds(100_000_000), maximumDelay: .seconds(100_000_000))

    /// Whether `condition` came true within 120 seconds (a guard against a hang on a loaded
    /// machine, not a measure), looking every 10 ms.
    private static func wait(until condition: () -> Bool) async -> Bool {
        for _ in 0..<12_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Runs `ip ARGUMENTS`; throws when it fails.
    private func ip(_ arguments: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ip"] + arguments.split(separator: " ").map(String.init)
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw NamespaceCommandError(command: "ip \(arguments)", message: message)
        }
    }
}

/// An `ip` command that failed inside the namespace.
struct NamespaceCommandError: Error, CustomStringConvertible {
    let command: String
    let message: String
    var description: String { "\(command) failed: \(message)" }
}
#endif
