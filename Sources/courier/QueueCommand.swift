import ArgumentParser
import Courier
import CourierQueue
import Foundation

/// `courier queue list|run|retry|drop`: the durable queue from the shell.
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        _superCommandName: CourierCLI.name,
        abstract: "List, deliver, retry or drop the durable requests kept by `fetch --durable`.",
        subcommands: [List.self, Run.self, Retry.self, Drop.self]
    )

    /// `queue list`: one line per record.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Print one line per record: id, state (pending, in-flight, delivered, failed, expired), attempts, method and URL."
        )

        @OptionGroup var queue: QueueOptions

        func run() async throws {
            let out = Output.current
            let records = try await queue.withQueue(delivers: false) { try await $0.records() }
            for record in records { out.line(QueueCommand.line(for: record)) }
        }
    }

    /// `queue retry ID`.
    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "retry", abstract: "Make a failed, expired or waiting record pending again, due now, with its original key.")

        @OptionGroup var record: RecordSelection

        func run() async throws {
            let retried = try await record.queue.withQueue(delivers: false) { try await $0.retry(id: record.id) }
            Output.current.line(QueueCommand.line(for: retried))
        }
    }

    /// `queue drop ID`.
    struct Drop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "drop", abstract: "Delete a record that is not being sent.")

        @OptionGroup var record: RecordSelection

        func run() async throws {
            let dropped = try await record.queue.withQueue(delivers: false) { try await $0.drop(id: record.id) }
            Output.current.line("dropped \(dropped.id)")
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
