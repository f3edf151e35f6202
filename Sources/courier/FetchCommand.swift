import ArgumentParser
import Courier
import Foundation

/// `courier fetch URL`: sends one request and prints the response.
///
/// The request items, `--cache`, `--cache-mode` and `--pretty` are options of the command itself,
/// gathered into values (``items``, ``cache``) by computed properties, rather than option
/// groups: each group type costs ArgumentParser reflection and several runtime conformance
/// lookups on every run (about a tenth of a small fetch's start-up for these). The groups kept
/// are shared with other commands or make `--help` clearer.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        _superCommandName: CourierCLI.name,
        abstract: "Send one request and print the response body (or a JSON report)."
    )

    @Argument(help: "The URL, or a path joined to --base-url.")
    var url: String

    @Argument(
        help: ArgumentHelp(
            "Request items: Name:value (header), Name: (no such header), Name; (empty header), name==value (query item), name=value (JSON string field), name:=JSON, name@PATH[;type=MIME] (file; makes the body multipart), name=@PATH (the file's text), name:=@PATH (the file's JSON); \\ escapes : = @ ;.",
            valueName: "item"))
    var itemTexts: [String] = []

    @Flag(name: .customLong("form-items"), help: "Send the request items' fields as application/x-www-form-urlencoded (multipart/form-data with a file item); the shorthand also takes --form and -f.")
    var formItems = false

    @Flag(name: [.customShort("j"), .customLong("json-items")], help: "Send the fields as a JSON object (the default), with JSON Accept and Content-Type even without fields; the shorthand also takes --json.")
    var jsonItems = false

    @Flag(name: .customLong("multipart"), help: "Send the request items' fields as multipart/form-data, with or without a file item.")
    var multipartItems = false

    @Option(name: [.customShort("X"), .long], help: "The method (default GET; HEAD with -I, PUT with -T, POST with another body).")
    var method: String?

    @Option(name: [.customShort("H"), .customLong("header")], help: "A header, 'Name: value', or 'Name;' for an empty value (repeatable).")
    var headers: [String] = []

    @Option(name: .customLong("query"), help: "A query item, name=value (repeatable).")
    var queryItems: [String] = []

    @OptionGroup(title: "Body") var body: FetchBodyOptions

    @Option(name: [.customShort("A"), .customLong("user-agent")], help: "The User-Agent header (a -H User-Agent wins).")
    var userAgent: String?

    @Option(name: [.customShort("e"), .customLong("referer")], help: "The Referer header (a -H Referer wins).")
    var referer: String?

    @Option(
        name: [.customShort("r"), .customLong("range")], parsing: .unconditional,
        help: ArgumentHelp("Ask for these bytes only, as curl does: START-END, START-, -LAST, or several joined with commas (Range: bytes=…; a -H Range wins).", valueName: "range"))
    var range: String?

    @OptionGroup var client: ClientOptions

    @OptionGroup var authentication: AuthenticationOptions

    @OptionGroup(title: "netrc") var netrc: NetrcOptions

    @Option(
        name: .customLong("cache"),
        help: ArgumentHelp(
            "A cache folder (created if missing), or a postgres:// URL for a cache that processes on many hosts share: responses are kept there by HTTP's caching rules and used by later runs.",
            valueName: "dir|url"))
    var cacheFolder: String?

    @Option(
        name: .customLong("cache-max-bytes"), parsing: .unconditional,
        help: ArgumentHelp("The most bytes the --cache keeps, its least recently used entries removed past it (default: 256 MiB for a folder, 1 GiB for PostgreSQL).", valueName: "bytes"),
        transform: OptionRange.whole(in: OptionRange.cacheBytes))
    var cacheMaxBytes: Int?

    @Option(name: .customLong("cache-mode"), help: "How the request uses the cache: \(FetchCacheOptions.Mode.names) (default: default). cached-then-fresh delivers the stored response, then the network's.")
    var cacheMode: FetchCacheOptions.Mode?

    @Flag(
        name: .customLong("stale-when-offline"),
        help: "With --cache, when the server cannot be reached (refused, unreachable, timed out), deliver the stored response even if stale, unless it is marked must-revalidate (then 504) or no-cache; a note on stderr gives its age.")
    var staleWhenOffline = false

    @Flag(name: [.customShort("f"), .long], help: "Exit with status 22 when the status is 4xx or 5xx, without writing the body (the -i head and the report are still printed).")
    var fail = false

    @Flag(name: .customLong("fail-with-body"), help: "Exit with status 22 when the status is 4xx or 5xx, once the body is written.")
    var failWithBody = false

    @Option(name: [.customShort("o"), .long], help: "Write the body to this file (replaced only once the whole body has arrived): a regular file or nothing yet, in a writable folder.")
    var output: String?

    @Flag(name: .customLong("create-dirs"), help: "Create the missing folders of the -o path (or of --output-dir) first, each for its owner alone (mode 0700), as curl does.")
    var createDirs = false

    @Option(name: .customLong("output-dir"), help: ArgumentHelp("The folder for -O's file and a relative -o path, as curl does.", valueName: "dir"))
    var outputDir: String?

    @Flag(name: [.customShort("O"), .customLong("remote-name")], help: "Write the body to the current folder, under the last segment of the URL's path, made safe.")
    var remoteName = false

    @Flag(name: [.customShort("J"), .customLong("remote-header-name")], help: "With -O, take the file name from the response's Content-Disposition, made safe; an existing file is not replaced.")
    var remoteHeaderName = false

    @OptionGroup var limit: SizeLimitOptions

    @Flag(name: [.customShort("i"), .long], help: "Print the status line and headers before the body, where the body goes (into the -o file, as curl does).")
    var include = false

    @Flag(name: [.customShort("I"), .customLong("head")], help: "Send HEAD and print the status line and headers, no body (into the -o file, as curl does).")
    var headOnly = false

    @Option(
        help: ArgumentHelp(
            "On a terminal, show JSON bodies indented and coloured (all), coloured (colors), indented (format) or as received (none); by default all, without colours when NO_COLOR is set or TERM=dumb. Output that is not a terminal, and -o files, are never changed.",
            valueName: "all|colors|format|none"))
    var pretty: TerminalStyle.Pretty?

    @Option(
        name: [.customShort("D"), .customLong("dump-header")], parsing: .unconditional,
        help: ArgumentHelp("Write the status line and headers to this file (mode 0600) as they arrive, or to stdout before the body with -, as curl does.", valueName: "file"))
    var dumpHeader: String?

    @Option(
        name: [.customShort("w"), .customLong("write-out")],
        help: ArgumentHelp("Print this text on stdout after the body, with %{http_code}, %{time_total}, %{size_download}, %{url_effective}, %{content_type}, %{num_redirects} and \\n, \\t escapes.", valueName: "format"))
    var writeOut: String?

    @Flag(help: "Ask for a compressed response (Accept-Encoding: gzip, deflate, br, zstd; br and zstd where the system's libbrotli and libzstd are installed). Compressed bodies are inflated either way.")
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
        let started = ContinuousClock.now
        let plan = try FetchPlan(command: self).make()
        let (configuration, request, destination) = (plan.configuration, plan.request, plan.destination)
        if durable { return try await runDurable(plan, started: started, out: out) }
        if report == nil, configuration.cache == nil {
            return try await runStreaming(plan, started: started, out: out)
        }
        let reportsEach = report == .json && cache.deliversTwice
        let response: CourierResponse
        do {
            response = try await ClientOptions.withClient(configuration: configuration, transport: self.client.transport) { client in
                guard reportsEach else { return try await client.response(for: request) }
                // One report line per response, as it is delivered: the stored one (if any), then the network's.
                var last: CourierResponse?
                for try await delivered in client.cachedThenFresh(request) {
                    try show(delivered, destination: destination, to: out)
                    last = delivered
                }
                guard let last else {
                    throw CommandFailure(.unexpected, "no response was delivered for \(url); try again")
                }
                return last
            }
        } catch let error as CourierError where error.kind == .authenticationFailed && error.response != nil {
            // Refused credentials, as in curl: the final 401 is the response.
            response = error.response!
        }
        if !reportsEach { try show(response, destination: destination, to: out) }
        if response.source == .stale, !client.hidesErrors {
            out.error("courier: note: this is the stored response, \(response.headers["Age"] ?? "0") s old and stale (the server was not asked, or could not be reached)")
        }
        printWriteOut(plan, for: response, started: started, to: out)
        try checkStatus(of: response)
    }

    /// Prints the report, or the head (with `--include` or `--head`) and the body, to stdout or
    /// to the file of `destination`; as in curl, the head goes where the body goes.
    func show(_ response: CourierResponse, destination: BodyDestination, to out: Output) throws {
        try dumpHead(of: response, to: out)
        if report == .json {
            out.write(Report.jsonLine(for: response) + "\n")
            return
        }
        let printsHead = include || headOnly
        let writes = writesBody(status: response.status)
        guard printsHead || writes else { return }
        if let path = try destination.path(for: response) {
            // Everything shown, as received: the head, the body, then the trailers it had.
            var bytes = Data()
            if printsHead { bytes.append(Data(TerminalStyle.asReceived.head(response).utf8)) }
            if writes {
                bytes.append(response.body)
                if include { bytes.append(Data(TerminalStyle.asReceived.trailers(response.trailers).utf8)) }
            }
            try PathCheck.write(bytes, to: path, named: path)
            return
        }
        let style = TerminalStyle(pretty: pretty, output: out)
        if printsHead { out.write(style.head(response)) }
        guard writes else { return }
        out.write(style.body(response.body, mediaType: response.mediaType))
        // As curl does: the trailers, when the head is shown, after the body they followed.
        if include { out.write(style.trailers(response.trailers)) }
    }

    /// Writes the head of `response` where `-D` says: a file (checked before anything is
    /// sent, replaced, mode 0600), or stdout for `-`; nothing without `-D`.
    func dumpHead(of response: CourierResponse, to out: Output) throws {
        guard let dumpHeader else { return }
        let text = TerminalStyle.asReceived.head(response)
        if dumpHeader == "-" {
            out.write(text)
            return
        }
        try PathCheck.write(Data(text.utf8), to: dumpHeader, named: "-D \(dumpHeader)")
    }

    /// Whether the body of a response with `status` is written: not with `--head`, nor for a
    /// 4xx or 5xx under `--fail` (it is under `--fail-with-body`).
    func writesBody(status: Int) -> Bool {
        !headOnly && !(fail && status >= 400)
    }

    /// Prints `-w`'s text, if any, for a response held whole.
    func printWriteOut(_ plan: FetchPlan.Made, for response: CourierResponse, started: ContinuousClock.Instant, to out: Output) {
        guard let format = plan.writeOut else { return }
        out.write(format.render(WriteOut.Values(response, bodyBytes: Int64(response.body.count), seconds: .now - started)))
    }

    /// Fails with status 22 for a 4xx or 5xx under `--fail` or `--fail-with-body`.
    func checkStatus(of response: CourierResponse) throws {
        if (fail || failWithBody) && response.status >= 400 {
            let server = FailureMessage.server(of: response.url)
            let reason = PrintableText.escaping(response.reasonPhrase)
            throw CommandFailure(.httpError, "\(server) answered \(response.status) \(reason) for \(response.url.absoluteString) (--fail)")
        }
    }
}
