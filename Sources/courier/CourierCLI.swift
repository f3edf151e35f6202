import ArgumentParser
import Foundation

/// The `courier` command: an HTTP client for the shell, built on the Courier library.
@main
struct CourierCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier",
        abstract: "An HTTP client with safe redirects, typed errors and a machine-readable report.",
        version: "0.1.0",
        subcommands: [
            FetchCommand.self, DownloadCommand.self, BatchCommand.self, CacheCommand.self, QueueCommand.self, DemoCommand.self, CacheWriterCommand.self,
        ]
    )

    static func main() async {
        let status = await run(Array(CommandLine.arguments.dropFirst()), output: .standard)
        Foundation.exit(status)
    }

    /// The command line being run, for options whose relative order matters (`--form` and
    /// `--file`).
    @TaskLocal static var arguments: [String] = []

    /// Parses and runs a command line; returns the process exit status.
    static func run(_ arguments: [String], output: Output) async -> Int32 {
        await Output.$current.withValue(output) {
            await $arguments.withValue(arguments) { await runParsed(arguments, output: output) }
        }
    }

    /// Held while a command line is parsed: ArgumentParser's parsing is not safe to run on
    /// several threads at once, and the tests run many command lines in one process.
    private static let parsing = NSLock()

    private static func runParsed(_ arguments: [String], output: Output) async -> Int32 {
        do {
            var command = try parsing.withLock { try parseAsRoot(arguments) }
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            return ExitStatus.success.rawValue
        } catch let failure as CommandFailure {
            output.error("courier: \(failure.message)")
            return failure.status.rawValue
        } catch {
            // Rendering a parse error (or the help) walks the same structures as parsing.
            return parsing.withLock {
                let code = exitCode(for: error)
                if code == .success {
                    output.write(fullMessage(for: error) + "\n")
                    return ExitStatus.success.rawValue
                }
                output.error("courier: \(message(for: error))")
                return code == .validationFailure || error is ValidationError ? ExitStatus.invalidInput.rawValue : ExitStatus.failure.rawValue
            }
        }
    }
}
