import ArgumentParser
import Courier
import CourierQueue
import Foundation
import NIOConcurrencyHelpers

extension QueueCommand {
    /// `queue run`: delivers until nothing waits, or the deadline, or until what is left only
    /// waits for credentials.
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Deliver what is pending; exit when the queue is empty (status 0), or when --deadline passes or the records left wait for credentials (status 112).",
            discussion: """
                The queue never stores credentials: a record enqueued with --user, --bearer or an Authorization (or other credential) header keeps only their names, and waits until a run is given them again. --user, --bearer and -H go to those records only, and only to the origin they were enqueued for: --origin, or the one origin such records have.
                """
        )

        @OptionGroup var queue: QueueOptions

        @OptionGroup(title: "Credentials") var credentials: QueueCredentialOptions

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Stop after this many seconds even if records still wait: more than 0 and at most 31536000 (365 days).", valueName: "seconds"),
            transform: OptionRange.seconds()
        )
        var deadline: Duration?

        func run() async throws {
            let out = Output.current
            try credentials.check()
            var clientConfiguration = ClientConfiguration()
            var source: (any QueueCredentialSource)?
            var reportsPermissions = true
            if credentials.givesCredentials {
                // Which origin the credentials are for is settled before any request is sent.
                let records = try await queue.withQueue(delivers: false) { try await $0.records() }
                reportsPermissions = false
                if let origin = try credentials.origin(for: records) {
                    source = try credentials.apply(to: &clientConfiguration, origin: origin)
                }
            }
            let waiting = NIOLockedValueBox<Set<String>>([])
            let emptied = try await queue.withQueue(
                delivers: false, clientConfiguration: clientConfiguration, credentials: source, reportsPermissions: reportsPermissions
            ) { queue in
                let events = await queue.events()
                let printer = Task {
                    for await event in events {
                        switch event {
                        case .delivered(let record, let response): out.line("delivered \(record.id) \(response.status)")
                        case .failed(let record): out.line("failed \(record.id) \(QueueCommand.reason(record))")
                        case .expired(let record): out.line("expired \(record.id)")
                        case .needsCredentials(let record, let missing):
                            waiting.withLockedValue { _ = $0.insert(record.id) }
                            out.line(QueueCommand.waitingLine(record, missing: missing))
                        case .queued, .attempt, .waiting: break
                        }
                    }
                }
                let emptied = try await queue.run(deadline: deadline)
                await queue.close()  // ends the events, so that the printer has printed them all
                await printer.value
                return emptied
            }
            guard !emptied else { return }
            let count = waiting.withLockedValue { $0.count }
            if count > 0 {
                throw CommandFailure(
                    .queueNotEmpty,
                    "\(count) record\(count == 1 ? "" : "s") wait for credentials the queue does not keep; run `courier queue run` again with --bearer, --user or -H (and --origin when they are for several origins)"
                )
            }
            throw CommandFailure(.queueNotEmpty, "the deadline passed with records still waiting; run `courier queue run` again later")
        }
    }

    /// `waiting ID needs credentials for ORIGIN (NAMES): give …`.
    static func waitingLine(_ record: QueueRecord, missing: [String]) -> String {
        let advice = missing.contains { $0.lowercased() == "authorization" } ? "give --bearer, --user or -H" : "give -H 'Name: value'"
        return "waiting \(record.id) needs credentials for \(record.request.origin) (\(missing.joined(separator: ", "))): \(advice)"
    }
}
