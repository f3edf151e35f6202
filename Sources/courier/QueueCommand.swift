import ArgumentParser
import Courier
import Foundation

/// `courier queue list|run|retry|drop`: the durable queue from the shell.
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "List, deliver, retry or drop the durable requests kept by `fetch --durable`.",
        subcommands: [List.self, Run.self, Retry.self, Drop.self]
    )

    /// `queue list`: one line per record.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print one line per record: id, state (pending, in-flight, delivered, failed, expired), attempts, method and URL."
        )

        @OptionGroup var queue: QueueOptions

        func run() async throws {
            let out = Output.current
            let records = try await queue.withQueue(delivers: false) { try await $0.records() }
            for record in records { out.write(QueueCommand.line(for: record) + "\n") }
        }
    }

    /// `queue run`: delivers until nothing waits, or the deadline.
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Deliver what is pending; exit when the queue is empty (status 0) or when --deadline passes (status 14)."
        )

        @OptionGroup var queue: QueueOptions

        @Option(help: "Stop after this many seconds even if records still wait.")
        var deadline: Double?

        func run() async throws {
            let out = Output.current
            if let deadline, !(deadline > 0 && deadline.isFinite) {
                throw CommandFailure(.invalidInput, "--deadline must be a positive number of seconds")
            }
            let emptied = try await queue.withQueue(delivers: false) { queue in
                let events = await queue.events()
                let printer = Task {
                    for await event in events {
                        switch event {
                        case .delivered(let record, let response): out.write("delivered \(record.id) \(response.status)\n")
                        case .failed(let record): out.write("failed \(record.id) \(QueueCommand.reason(record))\n")
                        case .expired(let record): out.write("expired \(record.id)\n")
                        case .needsCredentials(let record, let missing):
                            out.write("waiting \(record.id) needs credentials for \(record.request.origin) (\(missing.joined(separator: ", ")))\n")
                        case .queued, .attempt, .waiting: break
                        }
                    }
                }
                let emptied = try await queue.run(deadline: deadline.map { .milliseconds(Int64($0 * 1000)) })
                await queue.close()  // ends the events, so that the printer has printed them all
                await printer.value
                return emptied
            }
            if !emptied {
                throw CommandFailure(.queueNotEmpty, "the deadline passed with records still waiting; run `courier queue run` again later")
            }
        }
    }

    /// `queue retry ID`.
    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a failed, expired or waiting record pending again, due now, with its original key.")

        @OptionGroup var record: RecordSelection

        func run() async throws {
            let retried = try await record.queue.withQueue(delivers: false) { try await $0.retry(id: record.id) }
            Output.current.write(QueueCommand.line(for: retried) + "\n")
        }
    }

    /// `queue drop ID`.
    struct Drop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a record that is not being sent.")

        @OptionGroup var record: RecordSelection

        func run() async throws {
            let dropped = try await record.queue.withQueue(delivers: false) { try await $0.drop(id: record.id) }
            Output.current.write("dropped \(dropped.id)\n")
        }
    }

    /// The record a `retry` or `drop` acts on, and its queue.
    struct RecordSelection: ParsableArguments {
        @Argument(help: "The record's id, as `queue list` prints it.")
        var id: String

        @OptionGroup var queue: QueueOptions
    }

    /// `ID STATE ATTEMPTS METHOD URL`.
    static func line(for record: QueueRecord) -> String {
        "\(record.id) \(record.state.rawValue) \(record.attempts) \(record.request.method) \(record.request.url.absoluteString)"
    }

    /// Why a record failed, on one line.
    static func reason(_ record: QueueRecord) -> String {
        guard let outcome = record.outcome else { return "" }
        if let status = outcome.status { return "\(status) \(outcome.reasonPhrase)" }
        return outcome.failure ?? ""
    }
}
