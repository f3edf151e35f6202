import ArgumentParser
import Courier
import CourierQueue
import Foundation

/// `queue run`'s credentials: `--user`, `--bearer` and `-H`, for the records that were
/// enqueued with credentials (whose values the queue never stored), and `--origin`, the origin
/// they are for.
struct QueueCredentialOptions: ParsableArguments {
    @OptionGroup var authentication: AuthenticationOptions

    @Option(name: [.customShort("H"), .customLong("header")], help: "A credential header, 'Name: value' (repeatable), given to the records of --origin that were enqueued with a header of that name.")
    var headers: [String] = []

    @Option(help: "The origin (scheme, host and port) --user, --bearer and -H are for; needed when the records waiting for credentials are for several origins.")
    var origin: String?

    /// Whether any credential was given.
    var givesCredentials: Bool { authentication.user != nil || authentication.bearer != nil || !headers.isEmpty }

    /// Checks the options before the queue is opened: the credential, the headers and the origin.
    func check() throws {
        try authentication.check()
        _ = try credentialHeaders()
        if let origin {
            _ = try Self.originURL(origin)
            guard givesCredentials else {
                throw CommandFailure(.invalidInput, "--origin says which origin --user, --bearer or -H are for; give one of them too")
            }
        }
    }

    /// The origin the credentials go to: `--origin`, or the one origin of the records in
    /// `records` that wait with credentials taken out; `nil` when no credential was given or
    /// no record needs one. Several origins without `--origin` are a usage error.
    func origin(for records: [QueueRecord]) throws -> URL? {
        guard givesCredentials else { return nil }
        if let origin { return try Self.originURL(origin) }
        let origins = Set(records.filter { !$0.state.isFinal && $0.request.needsCredentials }.map(\.request.origin)).sorted()
        guard origins.count <= 1 else {
            throw CommandFailure(
                .invalidInput,
                "the records waiting for credentials are for several origins (\(origins.joined(separator: ", "))); say which one --user, --bearer or -H are for with --origin"
            )
        }
        return origins.first.flatMap(URL.init(string:))
    }

    /// Gives `configuration` the `--user` or `--bearer` credential for `origin`, and returns the
    /// queue's source of the `-H` headers for `origin`.
    func apply(to configuration: inout ClientConfiguration, origin: URL) throws -> (any QueueCredentialSource)? {
        try authentication.apply(to: &configuration, url: origin.absoluteString)
        let headers = try credentialHeaders()
        return headers.isEmpty ? nil : QueueCredentials.headers(headers, for: origin)
    }

    /// The `-H` headers.
    private func credentialHeaders() throws -> Headers {
        var result = Headers()
        for header in headers {
            let (name, value) = try ClientOptions.header(header)
            guard !name.isEmpty else { throw CommandFailure(.invalidInput, "-H \(header) has no name") }
            result.add(name: name, value: value)
        }
        return result
    }

    /// `text` as an http or https URL with a host.
    private static func originURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw CommandFailure(.invalidInput, "--origin \(text) is not an http or https URL, like https://api.example.com")
        }
        return url
    }
}
