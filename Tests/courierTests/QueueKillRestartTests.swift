import Courier
import CourierQueue
import CourierTesting
import Foundation
import Testing

/// `courier fetch --durable` processes killed with SIGKILL at many points of a durable
/// request's life, each followed by a restart (`courier queue run`, itself killed every other
/// time): nothing lost, nothing left, nothing applied twice.
@Suite("courier queue: killed and restarted")
struct QueueKillRestartTests {
    /// Where the child dies.
    enum KillPoint: CaseIterable {
        /// At once: while it starts, opens the database or writes the record.
        case immediately
        /// After a short, varying wait: while writing or sending.
        case soon
        /// Once the server applied the key, while its answer is delayed: after the server
        /// committed, before the response was recorded.
        case afterTheServerApplied
        /// Never: the child runs to its end.
        case never
    }

    @Test func everyAcceptedRequestReachesTheServerAndIsAppliedOnce() async throws {
        try await withServer { server in
            try await withQueuePath { path in
                var points: [String: KillPoint] = [:]
                for index in 0..<16 {
                    let point = KillPoint.allCases[index % KillPoint.allCases.count]
                    let tag = "r\(index)"
                    points[tag] = point
                    // The server holds its answer long enough that the kill lands before it even
                    // when this test wakes late on a loaded machine; the test ends that hold itself
                    // once the child is dead, so the restart is answered at once.
                    let delay = point == .afterTheServerApplied ? "300" : "0.5"
                    let url = server.url("/idempotent/\(tag)?delay=\(delay)").absoluteString
                    let child = try ChildProcess.launch(["fetch", url, "--data", tag, "--durable", "--queue", path, "--tag", tag])
                    switch point {
                    case .immediately:
                        child.kill()
                    case .soon:
                        try await Task.sleep(for: .milliseconds(15 * (index + 1)))
                        child.kill()
                    case .afterTheServerApplied:
                        let path = "/idempotent/\(tag)"
                        for _ in 0..<12000 where !server.ledger.entries.values.contains(where: { $0.path == path }) {
                            try await Task.sleep(for: .milliseconds(10))
                        }
                        child.kill()
                        for (key, entry) in server.ledger.entries where entry.path == path {
                            server.ledger.release(key: key)
                        }
                    case .never:
                        break
                    }
                    let ended = try await child.finish()
                    if point == .never {
                        #expect(ended.status == 0)
                    }
                    // Restart: a new process resumes the queue; every other time it is killed
                    // too, once it has started, and a third one finishes the work.
                    if index % 2 == 1 {
                        let interrupted = try ChildProcess.launch(["queue", "run", "--queue", path, "--deadline", "60"])
                        try await Task.sleep(for: .milliseconds(40 * (index % 5)))
                        interrupted.kill()
                        _ = try await interrupted.finish()
                    }
                    let restart = try ChildProcess.launch(["queue", "run", "--queue", path, "--deadline", "90"])
                    let restarted = try await restart.finish(within: 120)
                    #expect(restarted.status == 0, "queue run after \(tag) (\(point)): \(restarted.stdout)")
                }

                let records = try await CourierClient.withClient { client in
                    var configuration = QueueConfiguration(path: path)
                    configuration.deliversOnOpen = false
                    let queue = try await client.openQueue(configuration)
                    let records = try await queue.records()
                    await queue.close()
                    return records
                }
                // No record is left undelivered.
                #expect(records.allSatisfy { $0.state == .delivered }, "\(records.map { "\($0.request.tag ?? "") \($0.state)" })")
                // Every record reached the server, and the server saw no key without a record.
                let ledger = server.ledger.entries
                #expect(Set(records.map(\.request.idempotencyKey)) == Set(ledger.keys))
                // The server applied each key once, whatever number of times it arrived.
                #expect(ledger.values.allSatisfy { $0.applied == 1 })
                // Each tag was written at most once; requests the server applied or that ran to
                // the end were certainly accepted, so they must be there.
                let tags = records.compactMap(\.request.tag)
                #expect(tags.count == Set(tags).count)
                for (tag, point) in points where point == .afterTheServerApplied || point == .never {
                    #expect(tags.contains(tag), "\(tag) (\(point)) was lost")
                }
                // A request killed after the server applied it was sent again with its original key.
                for record in records where points[record.request.tag ?? ""] == .afterTheServerApplied {
                    #expect((ledger[record.request.idempotencyKey]?.requests ?? 0) >= 2)
                    #expect(record.attempts >= 2)
                }
            }
        }
    }
}

@Suite("courier queue run: several processes on one file")
struct QueueRunProcessesTests {
    @Test func severalProcessesShareOneFileAndOneKilledLosesNothing() async throws {
        try await withServer { server in
            try await withQueuePath { path in
                try await QueueWorkerProcesses.severalRunProcessesShareTheQueue(.sqlite(path: path), argument: path, server: server)
            }
        }
    }
}
