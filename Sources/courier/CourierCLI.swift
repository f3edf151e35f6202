import ArgumentParser
import Courier
import Foundation

/// The `courier` command: an HTTP client for the shell, built on the Courier library.
@main
struct CourierCLI: AsyncParsableCommand {
    /// The tool's name, as commands and messages spell it.
    static let name = "courier"

    static let configuration = CommandConfiguration(
        commandName: name,
        abstract: "An HTTP client with safe redirects, typed errors and a machine-readable report.",
        version: "0.3.0",
        subcommands: [
            FetchCommand.self, DownloadCommand.self, EventsCommand.self, WebSocketCommand.self, BatchCommand.self, CacheCommand.self, QueueCommand.self, DemoCommand.self,
        ]
    )

    /// Runs the command line; Ctrl-C cancels the command, which ends with status 130 (a second
    /// Ctrl-C ends the process at once).
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        EventLoopCount.configure(for: arguments, environment: ProcessInfo.processInfo.environment)
        let command = Task { await run(arguments, output: .standard) }
        let status = await Interruption.value(of: command)
        Foundation.exit(status)
    }

    /// The command line being run, for options whose relative order matters (`--form` and
    /// `--file`).
    @TaskLocal static var arguments: [String] = []

    /// The environment options read (`--p12-password-env`), when not the process's: tests
    /// give their own, since changing the process's environment while other threads read it
    /// is not safe.
    @TaskLocal static var environment: [String: String]?

    /// Reads the whole of standard input, for `@-` values; tests give their own bytes.
    @TaskLocal static var standardInput: @Sendable () throws -> Data = { try FileHandle.standardInput.readToEnd() ?? Data() }

    /// Standard input as it is read, for `-T -`; tests give their own.
    @TaskLocal static var standardInputPieces = StandardInputPieces.process

    /// The folder `fetch -O` writes into; tests give a folder of their own.
    @TaskLocal static var currentFolder: @Sendable () -> String = { FileManager.default.currentDirectoryPath }

    /// Parses and runs a command line, HTTPie's shorthand (`courier [METHOD] URL ITEM…`) and
    /// curl's word order (`courier -d a=1 URL`) read as `fetch`; returns the process exit status.
    static func run(_ arguments: [String], output: Output) async -> Int32 {
        await Output.$current.withValue(output) {
            var reading: Shorthand.Reading
            do throws(CommandFailure) {
                reading = try Shorthand.read(arguments, commands: Set(configuration.subcommands.map { $0._commandName } + ["help"]))
            } catch {
                output.error("courier: \(error.message)")
                return error.status.rawValue
            }
            var parsed: FetchCommand?
            if let fetch = await curlOrder(arguments) {
                (reading, parsed) = (Shorthand.Reading(arguments: fetch.arguments), fetch.command)
            } else if isCurlOrder(arguments) {
                // A line in curl's word order that `fetch` refuses: `fetch`'s parse says why,
                // naming the option it does not know or the value it refuses, rather than the
                // root's, which knows none of `fetch`'s options.
                reading = Shorthand.Reading(arguments: [FetchCommand.configuration.commandName!] + arguments)
            } else if reading.arguments.first == FetchCommand.configuration.commandName {
                parsed = FetchLine.command(Array(reading.arguments.dropFirst()))
            }
            return await $arguments.withValue(reading.arguments) { [reading, parsed] in
                await runParsed(reading.arguments, parsed: parsed, hint: reading.hint, output: output)
            }
        }
    }

    /// curl's word order: a line that starts with an option and reads as `fetch`'s options and
    /// a URL (in one of the shorthand's shapes, so that a command's name never passes for one)
    /// is `fetch` itself, the URL written out whole, with the command that parse made (so that
    /// the line is not parsed again); `nil` for any other line. A line with no word in a URL's
    /// shape (`--version`, `-h`) is not parsed here at all: a parse is most of a short command's
    /// start-up. An everyday line is read by ``FetchLine``, any other by ArgumentParser.
    private static func curlOrder(_ arguments: [String]) async -> (arguments: [String], command: FetchCommand)? {
        guard isCurlOrder(arguments) else { return nil }
        if let command = FetchLine.command(arguments) { return curlOrder(arguments, parsed: command, parse: FetchLine.command) }
        return await parsing.take {
            let parse = { (line: [String]) in try? FetchCommand.parseAsRoot(line) as? FetchCommand }
            return curlOrder(arguments, parsed: parse(arguments), parse: parse)
        }
    }

    /// Whether `arguments` is in curl's word order: it starts with an option and has a word in
    /// one of the shorthand's URL shapes.
    private static func isCurlOrder(_ arguments: [String]) -> Bool {
        guard let first = arguments.first, first.hasPrefix("-"), first != "--" else { return false }
        return arguments.contains { Shorthand.url($0) != nil }
    }

    /// curl's word order, `parsed` being `arguments` as `parse` reads them as `fetch`.
    private static func curlOrder(
        _ arguments: [String], parsed: FetchCommand?, parse: ([String]) -> FetchCommand?
    ) -> (arguments: [String], command: FetchCommand)? {
        guard let command = parsed, let url = Shorthand.url(command.url) else { return nil }
        guard url != command.url else { return (["fetch"] + arguments, command) }
        // The URL as typed (`localhost:8080/x`) is written out (`http://localhost:8080/x`)
        // where it stands: the first place whose change the parse sees.
        for index in arguments.indices where arguments[index] == command.url {
            var written = arguments
            written[index] = url
            if let command = parse(written), command.url == url { return (["fetch"] + written, command) }
        }
        return nil
    }

    /// Taken while a command line is parsed: ArgumentParser's parsing is not safe to run on
    /// several threads at once, and the tests run many command lines in one process.
    static let parsing = Turns()

    /// Runs `arguments`, or `parsed` when the line was already parsed into it.
    private static func runParsed(_ arguments: [String], parsed: FetchCommand?, hint: String?, output: Output) async -> Int32 {
        // `-s` without `-S`: a failure is told by its status alone, but a usage error (2) is
        // still explained, since nothing else would say what to change.
        var hidesErrors = false
        var proxy: String?
        do {
            let command: any ParsableCommand
            if let parsed { command = parsed } else { command = try await parsing.take { try parse(arguments) } }
            let client = clientOptions(of: command)
            hidesErrors = client?.hidesErrors ?? false
            proxy = client?.proxyEndpoint
            try await runCommand(command)
            return ExitStatus.success.rawValue
        } catch let error where error is CommandFailure || error is CourierError || error is CancellationError {
            var failure = CommandFailure(describing: error, proxy: proxy)
            // Once interrupted, whatever the cancellation made fail (a read of the queue's
            // database, a body cut short) is the interruption.
            if Task.isCancelled, failure.status != .interrupted {
                failure = CommandFailure(.interrupted, "interrupted")
            }
            if !hidesErrors || failure.status == .invalidInput { output.error("courier: \(failure.message)") }
            return failure.status.rawValue
        } catch {
            // ArgumentParser's own errors: help and version (0), usage and validation errors (2).
            // Rendering them walks the same structures as parsing.
            return await parsing.take {
                let code = exitCode(for: error)
                if code == .success {
                    output.write(fullMessage(for: error) + "\n")
                    return ExitStatus.success.rawValue
                }
                output.error("courier: \(message(for: error))" + (hint.map { " " + $0 } ?? ""))
                return code == .validationFailure || error is ValidationError ? ExitStatus.invalidInput.rawValue : ExitStatus.unexpected.rawValue
            }
        }
    }
}

extension CourierCLI {
    /// The connection options of `command`, when it takes them. `fetch`, the command of
    /// nearly every line, is known by its type rather than by a cast to a protocol: the first
    /// such cast in a process makes the Swift runtime scan every conformance record in the
    /// binary, about 0.4 M instructions of a short command's start-up each.
    private static func clientOptions(of command: any ParsableCommand) -> ClientOptions? {
        if let fetch = command as? FetchCommand { return fetch.client }
        return (command as? any ClientCommand)?.client
    }

    /// Runs `command`; `fetch` is known by its type, as in ``clientOptions(of:)``.
    private static func runCommand(_ command: any ParsableCommand) async throws {
        if let fetch = command as? FetchCommand {
            try await fetch.run()
        } else if var command = command as? any AsyncParsableCommand {
            try await command.run()
        } else {
            var command = command
            try command.run()
        }
    }

    /// Parses a command line into the command it names.
    ///
    /// ArgumentParser reads every option of a subcommand's type again at each step of a parse
    /// from the root: once to see whether the subcommand takes all remaining input, once to read
    /// its options, once more to decode them. Most of a short command's start-up went there. A
    /// line that names a subcommand is therefore first parsed by that subcommand alone, which
    /// reads its options once. Whatever else that parse gives (help, or an error) is left to the
    /// parse from the root, so that help texts and messages name the whole command.
    ///
    /// Each subcommand names `courier` as its super-command. ArgumentParser reads that name
    /// only when the subcommand is the root of a parse, and then skips its search for
    /// `--generate-completion-script`, which would read the options of two more command types.
    /// The option is still honoured: the subcommand does not take it, so the line goes to the
    /// parse from the root.
    static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        if let name = arguments.first, !name.hasPrefix("-"),
            let subcommand = configuration.subcommands.first(where: { $0._commandName == name }),
            let command = try? subcommand.parseAsRoot(Array(arguments.dropFirst())),
            isCommand(type(of: command), in: subcommand)
        {
            return command
        }
        return try parseAsRoot(arguments)
    }

    /// Whether `type` is `tree` or one of the subcommands under it.
    private static func isCommand(_ type: any ParsableCommand.Type, in tree: any ParsableCommand.Type) -> Bool {
        type == tree || tree.configuration.subcommands.contains { isCommand(type, in: $0) }
    }
}

/// A command that takes the options of ``ClientOptions``.
protocol ClientCommand {
    /// The command's connection options.
    var client: ClientOptions { get }
}

extension FetchCommand: ClientCommand {}
extension DownloadCommand: ClientCommand {}
extension BatchCommand: ClientCommand {}
