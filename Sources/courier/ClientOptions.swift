import ArgumentParser
import Courier
import Foundation

/// The options `fetch`, `batch` and `download` share: where relative URLs go, how long to
/// wait, redirects and retries, cookies, the proxy, verbose output and TLS.
struct ClientOptions: ParsableArguments {
    @Option(name: .customLong("base-url"), help: "The base URL a relative URL is joined to.")
    var baseURL: String?

    @Option(
        name: [.customShort("m"), .customLong("timeout"), .customLong("max-time")], parsing: .unconditional,
        help: ArgumentHelp("The total time allowed per request, redirects included: more than 0 and at most 31536000 seconds (365 days).", valueName: "seconds"),
        transform: OptionRange.seconds()
    )
    var timeout: Duration?

    @Option(
        name: .customLong("connect-timeout"), parsing: .unconditional,
        help: ArgumentHelp("The time allowed to open a connection, TCP and TLS handshake together: more than 0 and at most 31536000 seconds (default 10).", valueName: "seconds"),
        transform: OptionRange.seconds()
    )
    var connectTimeout: Duration?

    @Option(
        name: .customLong("max-redirects"), parsing: .unconditional,
        help: ArgumentHelp("The most redirects to follow, 0 to 100 (default 10; with 0 the redirect response itself is delivered).", valueName: "n"),
        transform: OptionRange.whole(in: OptionRange.redirects)
    )
    var maxRedirects: Int?

    @Flag(name: .customLong("no-follow"), help: "Do not follow redirects.")
    var noFollow = false

    @Flag(name: [.customShort("L"), .customLong("location")], help: "Follow redirects: the default already, accepted for curl's command lines (--no-follow turns following off).")
    var location = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Send a request again up to N times (0 to 100) after a connection failure, a timeout, or a 408, 429, 500, 502, 503 or 504 (idempotent methods, or with an Idempotency-Key header), honouring Retry-After, within --max-time. Default 0, as in curl; for download 2, each retry resuming the file.",
            valueName: "n"),
        transform: OptionRange.whole(in: OptionRange.retries)
    )
    var retry: Int?

    @Option(
        name: [.customShort("b"), .customLong("cookie")],
        help: ArgumentHelp(
            "With an '=', cookies 'NAME=VALUE; NAME2=VALUE2' sent to the request's origin (not after a redirect to another one); else a cookie file to read, Netscape (curl's) or Courier's JSON, ignored if missing (repeatable).",
            valueName: "data|file"))
    var cookie: [String] = []

    @Option(
        name: [.customShort("c"), .customLong("cookie-jar")],
        help: ArgumentHelp(
            "Write every cookie, session cookies included, to this Netscape cookie file (mode 0600) when the command ends; '-' writes them to stdout. Give the same file to -b to keep a session.",
            valueName: "file"))
    var cookieJar: String?

    @Option(
        name: .customLong("cookie-json"),
        help: ArgumentHelp(
            "A JSON cookie file read at the start and saved (mode 0600) when the command ends, cookies with an expiry date only.", valueName: "file"))
    var cookieJSON: String?

    @Option(
        name: [.customShort("x"), .long],
        help:
            "A proxy, http://[USER:PASSWORD@]HOST[:PORT] (CONNECT tunnels; https:// speaks TLS to the proxy, checked as a server is), or socks5:// or socks5h:// (SOCKS5; socks5h lets the proxy resolve names); port 1080 by default; the user and password go to the proxy only. Without it, the proxies http_proxy, https_proxy and all_proxy name are used, as curl reads them; --proxy '' uses none."
    )
    var proxy: String?

    @Option(
        name: .customLong("noproxy"),
        help: ArgumentHelp(
            "Hosts reached without a proxy, in place of no_proxy: comma-separated names (each with the names under it), addresses, CIDR networks, each with an optional :PORT, or * for every host.",
            valueName: "list"))
    var noProxy: String?

    @Flag(name: [.customShort("v"), .long], help: "Print each request and response head, every redirect and challenge included, on stderr, with credentials and cookies redacted.")
    var verbose = false

    @Flag(name: [.customShort("s"), .long], help: "Print no progress and no error line (the exit status still tells what happened); usage errors (status 2) are still explained.")
    var silent = false

    @Flag(name: [.customShort("S"), .customLong("show-error")], help: "With -s, print the error line of a failure again.")
    var showError = false

    @Option(
        help: ArgumentHelp(
            "How requests are sent: ahc (AsyncHTTPClient, the default) or urlsession (URLSession; on Linux FoundationNetworking over libcurl, which refuses --cacert, --pin, --cert, --proxy and --tls-min other than 1.2; not in the courier scripts/install.sh builds).",
            valueName: "ahc|urlsession"))
    var transport: TransportChoice = .ahc

    @OptionGroup(title: "TLS") var tls: TLSOptions

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Refused: certificate checks cannot be turned off (use --cacert or --pin).")
    var insecure = false

    @Flag(name: [.customLong("tlsv1"), .customLong("tlsv1.0"), .customLong("tlsv1.1")], help: "Refused: use --tls-min to choose the oldest TLS version accepted.")
    var oldTLS = false

    // The cookie options and the refused flags are not option groups of their own: each group
    // type costs ArgumentParser reflection and several runtime conformance lookups on every
    // run of `fetch`, `download` and `batch`. TLS keeps its group, for a clearer `--help`.

    /// The cookie options, as one value.
    var cookies: CookieOptions { CookieOptions(cookies: cookie, cookieJar: cookieJar, cookieJSON: cookieJSON) }

    /// Whether a failure's error line is left out: `-s` without `-S`.
    var hidesErrors: Bool { silent && !showError }

    /// The client configuration these options describe; without `--retry`, `defaultRetries`
    /// retries (none, as in curl, but for `download`).
    func configuration(defaultRetries: Int = 0) throws -> ClientConfiguration {
        if location && noFollow { throw CommandFailure(.invalidInput, "give -L/--location or --no-follow, not both") }
        var configuration = ClientConfiguration()
        try applyConnectionOptions(to: &configuration)
        if let base = baseURL {
            guard let url = URL(string: base), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host != nil
            else {
                throw CommandFailure(.invalidInput, "--base-url \(base) is not an http or https URL")
            }
            configuration.baseURL = url
        }
        if noFollow {
            configuration.redirectPolicy = .none
        } else if let maximum = maxRedirects {
            configuration.redirectPolicy = .follow(maximum: maximum)
        }
        configuration.retryPolicy = .retries(retry ?? defaultRetries)
        if let timeout { configuration.timeouts.total = timeout }
        if let connectTimeout { configuration.timeouts.connect = connectTimeout }
        try tls.apply(to: &configuration)
        return configuration
    }

    /// Applies the cookie options, the proxies (`--proxy`, `--noproxy` and the environment's)
    /// and `--verbose`.
    private func applyConnectionOptions(to configuration: inout ClientConfiguration) throws {
        try cookies.apply(to: &configuration)
        // As curl: the environment's proxies unless --proxy names one, its no_proxy (or
        // --noproxy) either way, and nothing at all with --proxy ''. URLSession reads the
        // environment itself.
        if proxy != "", transport == .ahc {
            var variables = CourierCLI.environment ?? ProcessInfo.processInfo.environment
            if let noProxy {
                variables["NO_PROXY"] = nil
                variables["no_proxy"] = noProxy
            }
            let environment = ProxyEnvironment(variables)
            if environment.namesAProxy || !environment.bypass.entries.isEmpty { configuration.proxyEnvironment = environment }
        }
        if let proxy, !proxy.isEmpty {
            guard let url = URL(string: proxy) else {
                throw CommandFailure(.invalidInput, "--proxy needs a URL, http://[USER:PASSWORD@]HOST[:PORT] or socks5h://[USER:PASSWORD@]HOST[:PORT]")
            }
            do {
                configuration.proxy = try Proxy(url: url)
            } catch {
                throw CommandFailure(.invalidInput, "--proxy: \(error.message)")
            }
        }
        if verbose {
            configuration.observers.append(VerboseLog(output: Output.current))
        }
    }

    /// Runs `body` with a client for `configuration` on `transport`, then saves its cookie jar, if it has
    /// one, whether `body` returned or threw.
    ///
    /// The command ends right after, and the process's exit closes the client's connections.
    /// Its shutdown is therefore waited for only when a cache may still be storing what a
    /// background refresh fetched (``CourierClient/shutdown()`` waits for those first); otherwise it
    /// is started and left to the exit. Waiting would hold the command, long after the
    /// request's own deadline, until every connection still being opened ended: up to the
    /// connect timeout for a server that never finishes the TLS handshake.
    static func withClient<Result>(
        configuration: ClientConfiguration,
        transport: TransportChoice = .ahc,
        _ body: (CourierClient) async throws -> Result
    ) async throws -> Result {
        let client = try transport.makeClient(configuration: configuration)
        let result: Result
        do {
            result = try await body(client)
        } catch {
            Task { try? await client.shutdown() }
            try saveCookies(of: configuration)
            throw error
        }
        if configuration.cache != nil {
            try await client.shutdown()
        } else {
            Task { try? await client.shutdown() }
        }
        try saveCookies(of: configuration)
        return result
    }

    private static func saveCookies(of configuration: ClientConfiguration) throws {
        try CookieOptions.save(configuration.cookies)
    }

    /// Parses `Name: value`, or curl's `Name;` for a field with an empty value.
    static func header(_ text: String) throws -> (name: String, value: String) {
        guard let colon = text.firstIndex(of: ":") else {
            let name = text.trimmingCharacters(in: .whitespaces)
            if name.count > 1, name.hasSuffix(";") { return (String(name.dropLast()).trimmingCharacters(in: .whitespaces), "") }
            throw CommandFailure(.invalidInput, "-H \(text) is not 'Name: value' (or 'Name;' for an empty value)")
        }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return (name, value)
    }
}
