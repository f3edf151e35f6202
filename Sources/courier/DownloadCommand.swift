import ArgumentParser
import Courier
import Foundation

/// `courier download URL`: saves a response to a file, with progress, pause by Ctrl-C and
/// `--resume`.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        _superCommandName: CourierCLI.name,
        abstract: "Download a URL to a file, with a progress bar, checks of length and digest, and resume.",
        discussion: """
            The body is written to NAME.courier-partial beside the destination and moved into place \
            when complete. Interrupted (Ctrl-C, a dropped connection once attempts run out), the \
            partial file and its resume record NAME.courier-resume stay; run the same command with \
            --resume to continue where it stopped. Without -o or --dir the file goes to the current \
            folder, named by the server.
            """
    )

    @Argument(help: "The URL to download (relative to --base-url when it has no scheme).")
    var url: String

    @Option(name: [.customShort("o"), .customLong("output")], help: "The file to write: a regular file or nothing yet, in a writable folder.")
    var output: String?

    @Option(help: "An existing, writable folder to write into, under the server's file name (Content-Disposition), made safe.")
    var dir: String?

    @Flag(help: "Continue a partial download of the same URL to the same destination.")
    var resume = false

    @Flag(help: "Replace the destination file if it exists.")
    var overwrite = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("How many attempts in all, 1 to 1000: --retry N less one, kept for scripts that use it.", valueName: "n", visibility: .hidden),
        transform: OptionRange.whole(in: OptionRange.attempts)
    )
    var attempts: Int?

    @Option(name: [.customShort("H"), .customLong("header")], help: "A header, 'Name: value', or 'Name;' for an empty value (repeatable). Credential headers (Authorization, Cookie) are not sent on after a redirect to another origin.")
    var headers: [String] = []

    @Option(
        name: .customLong("cache"),
        help: "A cache folder, as `fetch --cache` fills: a stored response the cache may deliver is the file, and stored first bytes are continued from the server (If-Range). The download itself is not stored.")
    var cacheFolder: String?

    @OptionGroup var limit: SizeLimitOptions

    @OptionGroup var client: ClientOptions

    @OptionGroup var authentication: AuthenticationOptions

    @OptionGroup(title: "netrc") var netrc: NetrcOptions

    func validate() throws {
        if output != nil && dir != nil { throw ValidationError("Give -o PATH or --dir DIR, not both.") }
    }

    /// Runs `body`, the one download of this process, on one of the client's event loops:
    /// each piece of the body is then written to the file on the thread that read it, instead
    /// of waking another thread for every piece. The writes are short (they go to the page
    /// cache), and no other exchange of the process waits on that loop.
    private static func onItsLoop<Result>(_ client: CourierClient, _ body: () async throws -> Result) async throws -> Result {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            return try await withTaskExecutorPreference(client.makeTaskExecutor(), operation: body)
        }
        return try await body()
    }

    func run() async throws {
        let out = Output.current
        var configuration = try client.configuration(defaultRetries: 2)
        if let attempts { configuration.retryPolicy.maximumAttempts = attempts }
        try authentication.apply(to: &configuration, url: url, netrc: netrc)
        if let cacheFolder { configuration.cache = CacheConfiguration(storage: try FetchCacheOptions.storage(folder: cacheFolder)) }
        try URLScheme.check(url)
        if configuration.baseURL == nil {
            guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https", parsed.host != nil else {
                throw CommandFailure(.malformedURL, "\(url) is not an absolute http or https URL; give one, or a path with --base-url")
            }
        }
        let destination: DownloadDestination
        if let output {
            try PathCheck.writableFile(output, option: "-o")
            destination = .file(URL(fileURLWithPath: output))
        } else if let dir {
            try PathCheck.writableFolder(dir, option: "--dir")
            destination = .directory(URL(fileURLWithPath: dir, isDirectory: true))
        } else {
            let current = FileManager.default.currentDirectoryPath
            try PathCheck.writableFolder(current, option: "--dir", named: "the current folder \(current) (no -o or --dir)")
            destination = .directory(URL(fileURLWithPath: current, isDirectory: true))
        }
        let progress = TransferProgressLine(output: out)
        // -s: no progress at all.
        var report: (@Sendable (TransferProgress) -> Void)?
        if !client.silent { report = { @Sendable in progress.update($0) } }
        let options = DownloadOptions(
            overwritesExistingFile: overwrite, resumesPartialDownload: resume, maximumBytes: limit.maxFilesize,
            progress: report
        )
        var request = CourierRequest<Void>(path: url)
        for header in headers {
            let (name, value) = try ClientOptions.header(header)
            request.headers.add(name: name, value: value)
        }
        if let timeout = client.timeout { request.timeout = timeout }
        let result: DownloadResult
        do {
            result = try await ClientOptions.withClient(configuration: configuration, transport: self.client.transport) { client in
                try await Self.onItsLoop(client) { try await client.download(request, to: destination, options: options) }
            }
        } catch let error where (error as? CourierError)?.kind == .cancelled || error is CancellationError {
            progress.finishLine()
            throw CommandFailure(.interrupted, "interrupted; the partial file and its resume record were kept: run the same command with --resume to continue")
        } catch {
            progress.finishLine()
            throw error
        }
        progress.finishLine()
        if result.response.source == .cache || result.response.source == .stale, !client.hidesErrors {
            out.error("courier: note: the file is the stored response from --cache, \(result.response.headers["Age"] ?? "0") s old; the server was not asked")
        }
        out.line(result.fileURL.path)
    }
}
