import Courier
import CourierQueue
import CourierTesting
import Foundation
import Testing

/// Several `courier queue run` processes on one queue, one of them killed with SIGKILL while
/// it sends: each record delivered and applied once, ordered records in their order. Run
/// against an SQLite file here and a PostgreSQL database in CourierQueuePostgresTests (which
/// links this file).
enum QueueWorkerProcesses {
    static func severalRunProcessesShareTheQueue(_ storage: QueueStorage, argument: String, server: TestServer) async throws {
        var tags: [String] = []
        try await CourierClient.withClient { client in
            var configuration = QueueConfiguration(storage: storage)
            configuration.deliversOnOpen = false
            let producer = try await client.openQueue(configuration)
            for index in 0..<30 {
                let ordered = index % 3 == 0
                let tag = ordered ? "o\(index)" : "u\(index)"
                let url = server.url("/idempotent/\(tag)?delay=\(ordered ? "0.05" : "0.2")").absoluteString
                _ = try await producer.enqueue(CourierRequest<Void>(method: .post, path: url), tag: tag, isOrdered: ordered)
                tags.append(tag)
            }
            await producer.close()
        }

        let run = ["queue", "run", "--queue", argument, "--deadline", "90"]
        let workers = try (0..<3).map { _ in try ChildProcess.launch(run) }
        // One worker dies while it sends; the others take over what it held. It is stopped
        // first, so that what it held can be read before it dies.
        for _ in 0..<2000 where server.ledger.entries.count < 4 { try await Task.sleep(for: .milliseconds(10)) }
        workers[0].pause()
        let victim = String(workers[0].process.processIdentifier)
        let held = try await CourierClient.withClient { client in
            var configuration = QueueConfiguration(storage: storage)
            configuration.deliversOnOpen = false
            let queue = try await client.openQueue(configuration)
            let records = try await queue.records()
            await queue.close()
            return Set(
                records.filter { $0.state == .inFlight && $0.lease?.holder.split(separator: "/").dropFirst().first.map(String.init) == victim }
                    .map(\.request.idempotencyKey)
            )
        }
        workers[0].kill()
        _ = try await workers[0].finish()
        for worker in workers.dropFirst() {
            let ended = try await worker.finish(within: 120)
            #expect(ended.status == 0, "queue run: \(ended.stdout)")
        }

        let records = try await CourierClient.withClient { client in
            var configuration = QueueConfiguration(storage: storage)
            configuration.deliversOnOpen = false
            let queue = try await client.openQueue(configuration)
            let records = try await queue.records()
            await queue.close()
            return records
        }
        #expect(records.count == tags.count)
        #expect(records.allSatisfy { $0.state == .delivered }, "\(records.map { "\($0.request.tag ?? "") \($0.state)" })")
        let ledger = server.ledger.entries
        #expect(Set(records.map(\.request.idempotencyKey)) == Set(ledger.keys))
        #expect(ledger.values.allSatisfy { $0.applied == 1 })
        // Only what the killed worker held was sent more than once (a server still busy with
        // the dead worker's attempt answers 409, and the record is tried again after it).
        let repeated = Set(ledger.filter { $0.value.requests > 1 }.keys)
        #expect(repeated.isSubset(of: held), "sent again: \(repeated.subtracting(held).count) records the killed worker did not hold")
        let ordered = server.ledger.appliedKeys.compactMap { ledger[$0]?.path }.filter { $0.hasPrefix("/idempotent/o") }
        #expect(ordered == tags.filter { $0.hasPrefix("o") }.map { "/idempotent/\($0)" })
    }
}
