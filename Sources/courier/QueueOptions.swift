import ArgumentParser
import Courier
import CourierQueue
import CourierQueuePostgres
import Foundation

/// `--queue PATH|URL`, shared by `fetch --durable` and the `queue` subcommands.
struct QueueOptions: ParsableArguments {
    @Option(
        name: .customLong("queue"),
        help: ArgumentHelp(
            "The queue's SQLite file (a regular file or a path where one can be made), or a postgres:// URL.",
            discussion:
                "Default: Courier/queue.sqlite in the user's application support folder (~/.local/share on Linux). A URL reads postgres://user:password@host:5432/database?sslmode=disable|prefer|require&connect_timeout=15; several `courier queue run` processes on one file or one database share the work.",
            valueName: "path|url"
        )
    )
    var path: String?

    /// The `postgres://` or `postgresql://` URL given, if one was.
    var databaseURL: URL? {
        guard let path, let scheme = path.split(separator: ":", maxSplits: 1).first?.lowercased(), ["postgres", "postgresql"].contains(scheme)
        else { return nil }
        return URL(string: path)
    }

    /// Where the records are: the database at the URL given, or the file.
    var storage: QueueStorage {
        if let databaseURL { return .postgres(databaseURL) }
        return .sqlite(path: path ?? QueueConfiguration.defaultPath)
    }

    /// The queue configuration these options describe.
    func configuration(delivers: Bool, credentials: (any QueueCredentialSource)? = nil) -> QueueConfiguration {
        var configuration = QueueConfiguration(storage: storage)
        configuration.deliversOnOpen = delivers
        configuration.credentials = credentials
        return configuration
    }

    /// Opens the queue with a client of `clientConfiguration`, runs `body`, and closes both.
    /// What opening found open to other users is printed on stderr, one line each, unless
    /// `reportsPermissions` is `false`.
    func withQueue<Result>(
        delivers: Bool, clientConfiguration: ClientConfiguration = ClientConfiguration(), credentials: (any QueueCredentialSource)? = nil,
        reportsPermissions: Bool = true, _ body: (DurableQueue) async throws -> Result
    ) async throws -> Result {
        if databaseURL == nil, let path, path.lowercased().hasPrefix("postgres") && path.contains("://") {
            throw CommandFailure(.invalidInput, "--queue \(path) is not a URL that can be read; write postgres://user@host:5432/database")
        }
        if databaseURL == nil { try PathCheck.fileOrNothing(path ?? QueueConfiguration.defaultPath, option: "--queue") }
        return try await ClientOptions.withClient(configuration: clientConfiguration) { client in
            let queue: DurableQueue
            do {
                queue = try await client.openQueue(configuration(delivers: delivers, credentials: credentials))
            } catch let error as CourierError {
                throw CommandFailure(error)
            }
            if reportsPermissions {
                for warning in queue.permissionWarnings { Output.current.error("courier: warning: \(warning)") }
            }
            do {
                let result = try await body(queue)
                await queue.close()
                return result
            } catch let error as CourierError {
                await queue.close()
                throw CommandFailure(error)
            } catch {
                await queue.close()
                throw error
            }
        }
    }
}
