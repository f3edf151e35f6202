import ArgumentParser
import Courier
import Foundation

/// `courier cache stats|clear --cache DIR|URL`: looks after a disk cache folder, or a cache in
/// PostgreSQL.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        _superCommandName: CourierCLI.name,
        abstract: "Show the size of a cache (a folder, or a postgres:// URL), or empty it.",
        subcommands: [Stats.self, Clear.self]
    )

    /// The option both subcommands take.
    struct Folder: ParsableArguments {
        @Option(help: ArgumentHelp("The cache folder or postgres:// URL (the one given to fetch --cache).", valueName: "dir|url"))
        var cache: String

        /// The store in the folder or database, or `nil` when there is no folder yet. A
        /// database that cannot be reached fails the command (no warning is written first).
        func storage() throws -> (any CacheStorage)? {
            if let database = try FetchCacheOptions.database(cache, warns: false) { return database }
            let url = URL(fileURLWithPath: cache, isDirectory: true)
            switch PathCheck.kind(of: url.path) {
            case .nothing: return nil
            case .folder: break
            case let kind: throw CommandFailure(.invalidInput, "--cache \(cache) is \(kind.described), not a folder; give the cache folder")
            }
            return try FetchCacheOptions.disk(folder: cache)
        }
    }

    /// `courier cache stats`.
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: "Print the number of entries in a cache and the bytes they take."
        )

        @OptionGroup var folder: Folder

        @Option(help: "Print a machine-readable report instead: json, one line with entries and bytes.")
        var report: FetchCommand.ReportFormat?

        func run() async throws {
            let statistics = try await CacheCommand.perform { try await folder.storage()?.statistics() } ?? CacheStatistics(entryCount: 0, totalBytes: 0)
            if report == .json {
                Output.current.write("{\"entries\":\(statistics.entryCount),\"bytes\":\(statistics.totalBytes)}\n")
            } else {
                Output.current.write("entries: \(statistics.entryCount)\nbytes: \(statistics.totalBytes)\n")
            }
        }
    }

    /// `courier cache clear`.
    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear",
            abstract: "Remove every entry from a cache."
        )

        @OptionGroup var folder: Folder

        func run() async throws {
            try await CacheCommand.perform { try await folder.storage()?.removeAll() }
        }
    }

    /// Runs `work`, turning a store's error into the command's failure.
    static func perform<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error as CourierError {
            throw CommandFailure(error)
        }
    }
}
