import ArgumentParser
import Courier
import Foundation
import NIOConcurrencyHelpers

/// `courier batch FILE.json`: sends the requests a file lists, several at a time.
struct BatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        _superCommandName: CourierCLI.name,
        abstract: "Send the requests listed in a JSON file, several at a time, and report each one in the file's order.",
        discussion: """
            The file is a JSON array of objects: "url" (required), "method" (default GET, or POST \
            when there is a body), "headers" (an object of name to value) and "body" (text).
            """
    )

    @Argument(help: "The JSON file listing the requests.")
    var file: String

    @Option(help: "fail-fast: the first failure cancels the rest. settle: every request runs to its end.")
    var mode: ModeOption = .failFast

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The most requests in flight at once, 1 to 1024 (default 6).", valueName: "n"),
        transform: OptionRange.whole(in: OptionRange.concurrency)
    )
    var concurrency: Int = 6

    @OptionGroup var client: ClientOptions

    @Option(
        name: .customLong("cache"),
        help: ArgumentHelp(
            "A cache folder, or a postgres:// URL for a cache that processes on many hosts share: responses are kept by HTTP's caching rules and a stored one may answer a request.",
            valueName: "dir|url"))
    var cacheLocation: String?

    @Option(
        name: .customLong("cache-max-bytes"), parsing: .unconditional,
        help: ArgumentHelp("The most bytes the --cache keeps (default: 256 MiB for a folder, 1 GiB for PostgreSQL).", valueName: "bytes"),
        transform: OptionRange.whole(in: OptionRange.cacheBytes))
    var cacheMaxBytes: Int?

    @Option(
        name: .customLong("limits"),
        help: ArgumentHelp(
            "A postgres:// URL whose database every process naming it shares its per-origin limits through: --per-host counts the requests of all of them, and a 429 or 503 with Retry-After seen by one holds the origin back for all.",
            valueName: "url"))
    var limitsLocation: String?

    @Option(
        name: .customLong("per-host"), parsing: .unconditional,
        help: ArgumentHelp(
            "The most requests in flight to one origin at once, 1 to 1024 (default: --concurrency); with --limits, across every process using that database.",
            valueName: "n"),
        transform: OptionRange.whole(in: OptionRange.concurrency))
    var perHost: Int?

    @Flag(help: "Count a 4xx or 5xx status as a failure.")
    var fail = false

    @Option(help: "Print one JSON report line per request, in the file's order: json.")
    var report: FetchCommand.ReportFormat?

    enum ModeOption: String, ExpressibleByArgument {
        case failFast = "fail-fast"
        case settle
    }

    func run() async throws {
        let out = Output.current
        let items = try BatchFile.read(file)
        var configuration = try client.configuration()
        configuration.limits.maximumConcurrentRequests = max(configuration.limits.maximumConcurrentRequests, concurrency)
        configuration.limits.maximumConcurrentRequestsPerHost = min(concurrency, perHost ?? concurrency)
        configuration.limits.maximumConnectionsPerHost = max(configuration.limits.maximumConnectionsPerHost, concurrency)
        try FetchCacheOptions(folder: cacheLocation, maximumBytes: cacheMaxBytes).apply(to: &configuration)
        if let limitsLocation {
            configuration.originBudget = try SharedLimitsOption.budget(limitsLocation, perHost: perHost ?? concurrency)
        }

        var batch = Batch(mode: mode == .failFast ? .failFast : .settle, maximumConcurrency: concurrency)
        // Each request is made when its turn comes, so that 20,000 of them cost little memory.
        let (json, fail) = (report == .json, fail)
        // A request the client would refuse is refused here, before any of the file is sent.
        for (index, item) in items.enumerated() {
            if let scheme = URL(string: item.url)?.scheme?.lowercased(), scheme != "http", scheme != "https" {
                throw CommandFailure(
                    .unsupportedProtocol, "\(file), request \(index): \"url\" uses \(scheme), which courier does not speak; give an http or https URL, or a path joined to --base-url")
            }
            do {
                try Self.request(for: item, index: index, json: json, fail: fail).validateFields()
            } catch {
                throw CommandFailure(.invalidInput, "\(file), request \(index): \(error.message)")
            }
        }
        batch.add(count: items.count) { index in Self.request(for: items[index], index: index, json: json, fail: fail) }

        let progress = ProgressLine(output: out)
        let results: BatchResults
        var firstFailure: (index: Int, error: any Error)?
        do {
            results = try await ClientOptions.withClient(configuration: configuration, transport: self.client.transport) { client in
                try await client.run(batch) { progress.update($0) }
            }
        } catch let error as BatchError {
            results = error.results
            firstFailure = (error.index, error.error)
        }

        var lines = ""
        for index in 0..<results.count {
            let line: String
            switch results.result(at: index) {
            case .success(let reported):
                line = reported as! String
            case .failure(let error):
                firstFailure = firstFailure ?? (index, error)
                let url = (error as? CourierError)?.url?.absoluteString ?? items[index].url
                line =
                    report == .json
                    ? Report.jsonLine(forFailure: error, index: index, url: url)
                    : "\(index) failed \(url): \(CommandFailure(describing: error, proxy: client.proxyEndpoint).message)"
            }
            // One line each, whatever the server sent: a report line has nothing to escape.
            lines += PrintableText.escaping(line) + "\n"
            if lines.utf8.count >= 1 << 16 {
                out.write(lines)
                lines = ""
            }
        }
        out.write(lines)
        // In settle mode, the first failure in the file's order speaks for the batch.
        if let (index, error) = firstFailure {
            let failed = results.failedIndices.count
            let first = CommandFailure(describing: error, proxy: client.proxyEndpoint)
            throw CommandFailure(first.status, "\(failed) of \(results.count) requests failed; the first, request \(index): \(first.message)")
        }
    }

    private static func request(for item: BatchItem, index: Int, json: Bool, fail: Bool) -> CourierRequest<String> {
        var request = CourierRequest<String>(path: item.url) { response, _ in
            json
                ? Report.jsonLine(for: response, index: index)
                : "\(index) \(response.status) \(response.url.absoluteString) \(response.body.count) bytes"
        }
        request.validators = fail ? [.statusCode(100..<400)] : []
        // Room for the item's fields, Accept-Encoding and the client's User-Agent at once.
        request.headers.reserveCapacity(item.headers.count + 2)
        for (name, value) in item.headers { request.headers.add(name: name, value: value) }
        if !request.headers.contains("Accept-Encoding") {
            request.headers.add(name: "Accept-Encoding", value: "identity")
        }
        if let body = item.body { request.body = .text(body) }
        request.method = item.method.map { CourierHTTPMethod($0) } ?? (item.body == nil ? .get : .post)
        return request
    }
}

/// The "n of m done" line on a terminal, redrawn at most ten times a second.
final class ProgressLine: Sendable {
    private let output: Output
    private let lastDrawn = NIOLockedValueBox<ContinuousClock.Instant?>(nil)

    init(output: Output) { self.output = output }

    func update(_ progress: BatchProgress) {
        guard let draw = output.progress else { return }
        let finished = progress.completed == progress.total
        let now = ContinuousClock.now
        let due = lastDrawn.withLockedValue { last in
            guard finished || last.map({ now - $0 >= .milliseconds(100) }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        draw("\(progress.completed) of \(progress.total) done, \(progress.failed) failed" + (finished ? "\n" : ""))
    }
}
