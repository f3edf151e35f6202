import ArgumentParser
import Courier
import Foundation

/// `courier fetch URL`: sends one request and prints the response.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Send one request and print the response body (or a JSON report)."
    )

    @Argument(help: "The URL, or a path joined to --base-url.")
    var url: String

    @Option(name: [.customShort("X"), .long], help: "The method (default GET, or POST when a body is given).")
    var method: String?

    @Option(name: [.customShort("H"), .customLong("header")], help: "A header, 'Name: value' (repeatable).")
    var headers: [String] = []

    @Option(name: .customLong("query"), help: "A query item, name=value (repeatable).")
    var queryItems: [String] = []

    @Option(help: "A raw body: TEXT, or @PATH to read a file.")
    var data: String?

    @Option(help: "A JSON body: TEXT, or @PATH to read a file.")
    var json: String?

    @Option(name: .customLong("form"), help: "A form field, name=value (repeatable; sent as application/x-www-form-urlencoded, or as a multipart field with --file).")
    var formFields: [String] = []

    @Option(name: .customLong("file"), help: "A file to upload, name=@PATH[;type=MIME][;filename=NAME] (repeatable; makes the body multipart/form-data, with any --form fields, in command-line order).")
    var files: [String] = []

    @OptionGroup var client: ClientOptions

    @OptionGroup var authentication: AuthenticationOptions

    @OptionGroup(title: "Cache") var cache: FetchCacheOptions

    @Flag(help: "Exit with status 6 when the status is 4xx or 5xx.")
    var fail = false

    @Option(name: [.customShort("o"), .long], help: "Write the body to this file (replaced only once the whole body has arrived): a regular file or nothing yet, in a writable folder.")
    var output: String?

    @OptionGroup var limit: SizeLimitOptions

    @Flag(name: [.customShort("i"), .long], help: "Print the status line and headers before the body.")
    var include = false

    @Flag(help: "Ask for a compressed response (Accept-Encoding: gzip, deflate). Compressed bodies are inflated either way.")
    var compressed = false

    @Option(help: "Print a machine-readable report instead of the body: json.")
    var report: ReportFormat?

    @Flag(help: "Write the request to the durable queue (--queue) before sending it, with an Idempotency-Key: print the response if it is delivered now, else `queued ID` (`courier queue run` delivers it later).")
    var durable = false

    @Option(help: "A label kept with a durable request.")
    var tag: String?

    @Flag(help: "Let a durable request overtake, and be overtaken by, the others to its host (by default they are sent first in, first out).")
    var unordered = false

    @OptionGroup var queue: QueueOptions

    enum ReportFormat: String, ExpressibleByArgument {
        case json
    }

    func run() async throws {
        let out = Output.current
        let (configuration, request) = try FetchPlan(command: self).make()
        if durable { return try await runDurable(configuration: configuration, request: request, out: out) }
        if report == nil, configuration.cache == nil {
            return try await runStreaming(configuration: configuration, request: request, out: out)
        }
        let reportsEach = report == .json && cache.deliversTwice
        let response: Response
        do {
            response = try await ClientOptions.withClient(configuration: configuration) { client in
                guard reportsEach else { return try await client.response(for: request) }
                // One report line per response, as it is delivered: the stored one (if any), then the network's.
                var last: Response?
                for try await delivered in client.cachedThenFresh(request) {
                    try show(delivered, to: out)
                    last = delivered
                }
                guard let last else {
                    throw CommandFailure(.failure, "no response was delivered for \(url); try again")
                }
                return last
            }
        } catch let error as CourierError {
            // Refused credentials: show the final 401 as any response, then fail.
            if error.kind == .authenticationFailed, let refused = error.response { try show(refused, to: out) }
            throw CommandFailure(error)
        }
        if !reportsEach { try show(response, to: out) }
        if fail && response.status >= 400 {
            throw CommandFailure(.httpError, "the server answered \(response.status) \(response.reasonPhrase) for \(response.url.absoluteString)")
        }
    }

    /// The status line and header fields, as `--include` prints them, control and
    /// bidirectional characters escaped.
    static func headText(_ response: Response) -> String {
        var head = "HTTP/1.1 \(response.status) \(PrintableText.escaping(response.reasonPhrase))\r\n"
        for field in response.headers { head += PrintableText.escaping("\(field.name): \(field.value)") + "\r\n" }
        return head + "\r\n"
    }

    /// Prints the report, or the head (with `--include`) and the body.
    func show(_ response: Response, to out: Output) throws {
        if report == .json {
            out.write(Report.jsonLine(for: response) + "\n")
        } else {
            if include { out.write(FetchCommand.headText(response)) }
            if let output {
                do {
                    try response.body.write(to: URL(fileURLWithPath: output), options: .atomic)
                } catch {
                    throw CommandFailure(.invalidInput, "could not write \(output): \(error.localizedDescription)")
                }
            } else {
                out.write(response.body)
            }
        }
    }
}
