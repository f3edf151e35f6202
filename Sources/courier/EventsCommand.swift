import ArgumentParser
import Courier
import CourierServerSentEvents
import Foundation

/// `courier events URL`: prints a Server-Sent Events stream as its events arrive, connecting
/// again when it drops.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        _superCommandName: CourierCLI.name,
        abstract: "Print a Server-Sent Events stream (text/event-stream) event by event, reconnecting with Last-Event-ID.",
        discussion: """
            Each event is printed as it arrives, as a server would send it (event, id and data \
            lines, then an empty line), or with --report json as one JSON object per line: \
            {"type":…,"id":…,"data":…}. A stream that ends or drops is connected again after \
            the server's retry time (3 seconds until it sets one), sending the id of the last \
            event; half an event is never printed. The command ends after a 204, after \
            --max-events events, or with Ctrl-C; a status outside 2xx, a response that is not \
            text/event-stream, or failed reconnections end it with an error.
            """
    )

    @Argument(help: "The URL of the stream (relative to --base-url when it has no scheme).")
    var url: String

    @Option(name: [.customShort("X"), .long], help: "The method (default GET). Streams of other methods are not connected again unless --reconnect is given.")
    var request: String?

    @Option(name: [.customShort("H"), .customLong("header")], help: "A header, 'Name: value', or 'Name;' for an empty value (repeatable).")
    var headers: [String] = []

    @Option(name: [.customShort("d"), .customLong("data")], help: "A request body, sent as it is (@PATH reads a file, @- standard input); the method becomes POST.")
    var data: String?

    @Option(name: .customLong("last-event-id"), help: "Start after this event id, as a reconnection would.")
    var lastEventID: String?

    @Option(
        name: .customLong("max-events"), parsing: .unconditional,
        help: ArgumentHelp("Stop after this many events, 1 to 1000000000.", valueName: "n"),
        transform: OptionRange.whole(in: 1...1_000_000_000)
    )
    var maxEvents: Int?

    @Flag(name: .customLong("no-reconnect"), help: "End when the first response ends; a dropped stream is then an error.")
    var noReconnect = false

    @Flag(name: .customLong("reconnect"), help: "Connect again after a drop whatever the method (a POST is sent again).")
    var reconnect = false

    @Option(
        name: .customLong("read-timeout"), parsing: .unconditional,
        help: ArgumentHelp("How long the stream may stay silent before it is dropped and connected again (default 60; 0 waits for ever).", valueName: "seconds"),
        transform: { text in text == "0" ? .zero : try OptionRange.seconds()(text) }
    )
    var readTimeout: Duration?

    @Option(help: "Print a machine-readable line per event instead: json.")
    var report: FetchCommand.ReportFormat?

    @OptionGroup var client: ClientOptions

    @OptionGroup var authentication: AuthenticationOptions

    @OptionGroup(title: "netrc") var netrc: NetrcOptions

    func validate() throws {
        if noReconnect && reconnect { throw ValidationError("Give --reconnect or --no-reconnect, not both.") }
    }

    func run() async throws {
        let out = Output.current
        var configuration = try client.configuration()
        try authentication.apply(to: &configuration, url: url, netrc: netrc)
        try URLScheme.check(url)
        var request = try makeRequest()
        if let readTimeout { request.connection.readTimeout = readTimeout == .zero ? .unlimited : .after(readTimeout) }
        if let timeout = client.timeout { request.timeout = timeout }
        let reconnection: EventStream.Reconnection? = noReconnect ? .never : (reconnect ? .automatic : nil)
        let json = report == .json
        let limit = maxEvents
        do {
            try await ClientOptions.withClient(configuration: configuration, transport: client.transport) { client in
                var count = 0
                for try await event in client.events(request, reconnection: reconnection) {
                    out.write(json ? Self.jsonLine(event) + "\n" : Self.text(event))
                    count += 1
                    if let limit, count >= limit { break }
                }
            }
        } catch let error where (error as? CourierError)?.kind == .cancelled || error is CancellationError {
            throw CommandFailure(.interrupted, "interrupted")
        } catch let error as CourierError where error.kind == .validationFailed {
            // A success that is not an event stream: the library's own sentence says so.
            guard let response = error.response, (200..<300).contains(response.status) else { throw error }
            let type = response.headers["Content-Type"].map { "Content-Type \($0)" } ?? "no Content-Type"
            throw CommandFailure(.malformedResponse, "\(response.url.absoluteString) answered \(response.status) with \(type), not text/event-stream: it is not an event stream")
        }
    }

    /// The request the options describe.
    private func makeRequest() throws -> CourierRequest<Void> {
        var request = CourierRequest<Void>(path: url)
        for header in headers {
            let (name, value) = try ClientOptions.header(header)
            request.headers.add(name: name, value: value)
        }
        if let lastEventID { request.headers.set(name: "Last-Event-ID", value: lastEventID) }
        if let data {
            request.method = .post
            request.body = .data(try FetchBodyOptions.read(data, option: "-d"))
        }
        if let method = self.request { request.method = CourierHTTPMethod(rawValue: method) }
        return request
    }

    /// An event as a server would send it, each line made safe to print.
    static func text(_ event: EventStream.Event) -> String {
        event.description.split(separator: "\n", omittingEmptySubsequences: false).map { PrintableText.escaping(String($0)) }.joined(separator: "\n")
    }

    /// An event's `--report json` line.
    static func jsonLine(_ event: EventStream.Event) -> String {
        "{\"type\":\(Report.quote(event.type)),\"id\":\(event.id.map(Report.quote) ?? "null"),\"data\":\(Report.quote(event.data))}"
    }
}
