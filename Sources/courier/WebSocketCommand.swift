import ArgumentParser
import Courier
import CourierWebSockets
import Foundation

/// `courier ws URL`: a WebSocket from the command line. Lines read from standard input are
/// sent as text messages; messages received are printed one per line.
struct WebSocketCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ws",
        _superCommandName: CourierCLI.name,
        abstract: "Open a WebSocket: send the lines of standard input as text messages, print the messages received.",
        discussion: """
            Each line of standard input (or each --send, when given) goes out as a text \
            message; each message received is printed on a line of its own, text as it came \
            (control characters escaped) and binary as [binary: N bytes], or with --report json \
            as one JSON object per line: {"type":"text","data":…} or \
            {"type":"binary","base64":…}. At the end of the input the connection is closed \
            (code 1000), unless --max-messages is given, and the command ends once the server \
            has answered. A close from the \
            server ends it too; its code and reason are printed on standard error when they \
            are not 1000. ws:// and wss:// URLs stand for http:// and https://; the upgrade \
            takes the client's options (headers, credentials, cookies, proxy, TLS).
            """
    )

    @Argument(help: "The URL (ws://, wss://, http:// or https://; relative to --base-url when it has no scheme).")
    var url: String

    @Option(name: [.customShort("H"), .customLong("header")], help: "A header of the upgrade request, 'Name: value' (repeatable).")
    var headers: [String] = []

    @Option(name: .customLong("send"), help: "A text message to send instead of reading standard input (repeatable, in order).")
    var messages: [String] = []

    @Option(name: .customLong("subprotocol"), help: "A subprotocol to offer (repeatable, most wanted first).")
    var subprotocols: [String] = []

    @Option(
        name: .customLong("max-messages"), parsing: .unconditional,
        help: ArgumentHelp("Close after receiving this many messages, 1 to 1000000000.", valueName: "n"),
        transform: OptionRange.whole(in: 1...1_000_000_000)
    )
    var maxMessages: Int?

    @Option(
        name: .customLong("ping-interval"), parsing: .unconditional,
        help: ArgumentHelp("Ping the server this often; a ping unanswered at the next ends the connection (default 30; 0 sends none).", valueName: "seconds"),
        transform: { text in text == "0" ? .zero : try OptionRange.seconds()(text) }
    )
    var pingInterval: Duration?

    @Flag(name: .customLong("no-compression"), help: "Do not offer permessage-deflate.")
    var noCompression = false

    @Option(help: "Print a machine-readable line per message instead: json.")
    var report: FetchCommand.ReportFormat?

    @OptionGroup var client: ClientOptions

    @OptionGroup var authentication: AuthenticationOptions

    @OptionGroup(title: "netrc") var netrc: NetrcOptions

    func run() async throws {
        let out = Output.current
        let httpURL = Self.httpURL(url)
        var configuration = try client.configuration()
        try authentication.apply(to: &configuration, url: httpURL, netrc: netrc)
        try URLScheme.check(httpURL)
        var request = CourierRequest<Void>(path: httpURL)
        for header in headers {
            let (name, value) = try ClientOptions.header(header)
            request.headers.add(name: name, value: value)
        }
        if let timeout = client.timeout { request.timeout = timeout }
        var socketConfiguration = CourierWebSocket.Configuration()
        socketConfiguration.subprotocols = subprotocols
        socketConfiguration.compression = !noCompression
        if let pingInterval { socketConfiguration.pingInterval = pingInterval == .zero ? nil : pingInterval }
        let json = report == .json
        let limit = maxMessages
        let outgoing = messages.isEmpty ? nil : messages
        do {
            let closure = try await ClientOptions.withClient(configuration: configuration, transport: client.transport) { client in
                try await client.webSocket(request, configuration: socketConfiguration) { socket in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            if let outgoing {
                                for message in outgoing { try await socket.send(message) }
                            } else {
                                for try await line in Self.lines(CourierCLI.standardInputPieces.read()) { try await socket.send(line) }
                            }
                            // With a number of messages to wait for, the end of the input
                            // does not close.
                            if limit == nil { try await socket.close(.normalClosure) }
                        }
                        var count = 0
                        for try await message in socket.messages {
                            out.write(Self.line(message, json: json) + "\n")
                            count += 1
                            if let limit, count >= limit {
                                try await socket.close(.normalClosure)
                                break
                            }
                        }
                        group.cancelAll()
                    }
                    return socket.closure
                }
            }
            if let closure, closure.code != .normalClosure {
                out.error("courier: the server closed the connection with \(closure.code)\(closure.reason.isEmpty ? "" : ": \(PrintableText.escaping(closure.reason))")")
            }
        } catch let error where (error as? CourierError)?.kind == .cancelled || error is CancellationError {
            throw CommandFailure(.interrupted, "interrupted")
        } catch let error as CourierError where error.underlyingError is UnansweredPing {
            // Not the request's own timeout, which the generic sentence is about: the
            // library's sentence says what happened.
            throw CommandFailure(.timeout, error.message)
        }
    }

    /// `text` with a `ws` or `wss` scheme as `http` or `https`.
    static func httpURL(_ text: String) -> String {
        switch URLScheme.scheme(of: text) {
        case "ws": "http" + text.dropFirst(2)
        case "wss": "https" + text.dropFirst(3)
        default: text
        }
    }

    /// A received message as printed.
    static func line(_ message: CourierWebSocket.Message, json: Bool) -> String {
        switch (message, json) {
        case (.text(let text), false): PrintableText.escaping(text)
        case (.binary(let data), false): "[binary: \(data.count) bytes]"
        case (.text(let text), true): "{\"type\":\"text\",\"data\":\(Report.quote(text))}"
        case (.binary(let data), true): "{\"type\":\"binary\",\"base64\":\"\(data.base64EncodedString())\"}"
        }
    }

    /// The lines of `pieces`, without their line ends (LF or CR LF); a last line without one
    /// counts.
    static func lines(_ pieces: AsyncThrowingStream<Data, any Error>) -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var pending = Data()
                do {
                    for try await piece in pieces {
                        pending.append(piece)
                        while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                            var line = pending[pending.startIndex..<end]
                            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                            continuation.yield(String(decoding: line, as: UTF8.self))
                            pending = Data(pending[(end + 1)...])
                        }
                    }
                    if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
