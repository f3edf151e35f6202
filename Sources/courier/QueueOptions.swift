import ArgumentParser
import Courier
import CourierQueue
import Foundation

/// `--queue PATH`, shared by `fetch --durable` and the `queue` subcommands.
struct QueueOptions: ParsableArguments {
    @Option(name: .customLong("queue"), help: "The queue's database file, a regular file or a path where one can be made (default: Courier/queue.sqlite in the user's application support folder, ~/.local/share on Linux).")
    var path: String?

    /// The queue configuration these options describe.
    func configuration(delivers: Bool, credentials: (any QueueCredentialSource)? = nil) -> QueueConfiguration {
        var configuration = QueueConfiguration(path: path ?? QueueConfiguration.defaultPath)
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
        try PathCheck.fileOrNothing(path ?? QueueConfiguration.defaultPath, option: "--queue")
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
