import Courier
import Foundation

/// Turns `fetch`'s options into a client configuration and a request.
struct FetchPlan {
    let command: FetchCommand

    /// What `fetch` does: the client's configuration, the request, where the body goes and
    /// what `-w` prints after it.
    struct Made {
        var configuration: ClientConfiguration
        var request: CourierRequest<CourierResponse>
        var destination: BodyDestination
        var writeOut: WriteOut?
    }

    func make() throws -> Made {
        try URLScheme.check(command.url)
        let url = try requestURL()
        let writeOut = try command.writeOut.map { format in try WriteOut(argument: format) }
        if command.fail && command.failWithBody { throw CommandFailure(.invalidInput, "give --fail or --fail-with-body, not both") }
        let items = try command.items.parsed()
        if command.headOnly && (command.body.givesBody || items.givesBody) { throw CommandFailure(.invalidInput, "-I/--head sends no body; leave out the body options or -I") }
        // Streamed, cached and durable runs all write -o, -O and -D: checked before any of them sends.
        let destination = try BodyDestination(
            output: command.output, remoteName: command.remoteName, remoteHeaderName: command.remoteHeaderName, url: url, folder: command.outputDir,
            createsFolders: command.createDirs
        )
        if let dumpHeader = command.dumpHeader, dumpHeader != "-" { try PathCheck.writableFile(dumpHeader, option: "-D", allowsDevice: true) }
        var configuration = try command.client.configuration()
        try command.authentication.apply(to: &configuration, url: url, netrc: command.netrc)

        var request = CourierRequest<CourierResponse>(path: url)
        request.validators = []
        request.query = try command.queryItems.map { item in
            guard let equals = item.firstIndex(of: "=") else { return URLQueryItem(name: item, value: nil) }
            guard equals != item.startIndex else { throw CommandFailure(.invalidInput, "--query \(item) has no name") }
            return URLQueryItem(name: String(item[..<equals]), value: String(item[item.index(after: equals)...]))
        }
        for header in command.headers {
            let (name, value) = try ClientOptions.header(header)
            request.headers.add(name: name, value: value)
        }
        for (name, value) in [("User-Agent", command.userAgent), ("Referer", command.referer), ("Range", try command.range.map(Self.byteRanges))] {
            if let value, !request.headers.contains(name) { request.headers.add(name: name, value: value) }
        }
        if !command.compressed, !request.headers.contains("Accept-Encoding") {
            // Like curl: ask for the representation as it is, so that the body printed is the
            // one the server sent. A server that compresses anyway is still inflated.
            request.headers.add(name: "Accept-Encoding", value: "identity")
        }
        if let limit = command.limit.maxFilesize {
            // A body held whole (a report, the cache, the queue's delivery) never gets more
            // than the client's own limit, and never more than --max-filesize.
            configuration.limits.maximumBodySize = Int(clamping: min(Int64(configuration.limits.maximumBodySize), limit))
        }
        request.body = try command.body.body(arguments: CourierCLI.arguments)
        try items.apply(to: &request, configuration: &configuration)
        try command.cache.apply(to: &configuration, request: &request)
        if let method = command.method {
            request.method = CourierHTTPMethod(method)
        } else if command.headOnly {
            request.method = .head
        } else if command.body.uploadFile != nil {
            request.method = .put
        } else if request.body != nil {
            request.method = .post
        }
        return Made(configuration: configuration, request: request, destination: destination, writeOut: writeOut)
    }

    /// `-r`'s value as a `Range` field: `bytes=` and one or more ranges, each `START-END`,
    /// `START-` or `-LAST` in digits, joined with commas.
    static func byteRanges(_ text: String) throws -> String {
        let ranges = text.split(separator: ",", omittingEmptySubsequences: false)
        let valid = ranges.allSatisfy { range in
            let ends = range.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard ends.count == 2, !(ends[0].isEmpty && ends[1].isEmpty) else { return false }
            return ends.allSatisfy { $0.utf8.count <= 19 && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
        }
        guard valid else {
            throw CommandFailure(.invalidInput, "-r \(text) is not a byte range: give START-END, START-, -LAST, or several joined with commas")
        }
        return "bytes=" + text
    }

    /// The URL as given; with `-G`, the data options appended to its query; with `-T FILE`,
    /// the file's name appended to a URL whose path ends in `/` or is empty, percent-encoded.
    private func requestURL() throws -> String {
        if let query = try command.body.queryText(arguments: CourierCLI.arguments) {
            // As curl does: after `?`, or after `&` when the URL has a query already.
            let end = command.url.firstIndex(of: "#") ?? command.url.endIndex
            let base = command.url[..<end]
            let separator = !base.contains("?") ? "?" : base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&"
            return base + separator + query + command.url[end...]
        }
        guard let upload = command.body.uploadFile, upload != "-" else { return command.url }
        let end = command.url.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? command.url.endIndex
        let path = command.url[..<end]
        let name = String(decoding: FetchBodyOptions.percentEncoded(Data(URL(fileURLWithPath: upload).lastPathComponent.utf8)), as: UTF8.self)
        if path.hasSuffix("/") {
            return path + name + command.url[end...]
        }
        if let parsed = URL(string: String(path)), parsed.host != nil, parsed.path.isEmpty {
            return path + "/" + name + command.url[end...]
        }
        return command.url
    }
}
