import Foundation

/// An HTTP proxy that requests go through.
///
/// The default transport opens each connection with `CONNECT host:port` to the proxy and
/// speaks to the origin inside that tunnel, for https and plain http URLs alike (that is what
/// AsyncHTTPClient offers); TLS to an https origin is negotiated end to end, so the proxy sees
/// neither the requests nor their credentials. The proxy's own credentials travel in
/// `Proxy-Authorization` (Basic) on the `CONNECT` request only: they never reach the origin,
/// and a `Proxy-Authorization` header set on a request is removed rather than sent through
/// the tunnel.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.proxy = Proxy(host: "proxy.internal", port: 3128, user: "ada", password: "s3cret")
/// // or: configuration.proxy = try Proxy(url: URL(string: "http://ada:s3cret@proxy.internal:3128")!)
/// ```
///
/// The proxy must allow `CONNECT` to the origin's port; some allow only 443 by default.
public struct Proxy: Sendable, Hashable, CustomStringConvertible {
    /// The user name and password sent to the proxy with Basic authentication.
    public struct Credentials: Sendable, Hashable {
        /// The user name.
        public var user: String
        /// The password.
        public var password: String

        /// Creates credentials.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }
    }

    /// The port used when a proxy URL names none, as curl does.
    public static let defaultPort = 1080

    /// The proxy's host name or IP address.
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The credentials for the proxy, if it asks for them.
    public var credentials: Credentials?

    /// Creates a proxy; give `user` and `password` when it requires authentication.
    public init(host: String, port: Int, user: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.credentials = user.map { Credentials(user: $0, password: password ?? "") }
    }

    /// A proxy from a URL such as `http://user:password@proxy.example:3128`; the user name
    /// and password, percent-decoded, become its ``credentials``; the port is
    /// ``defaultPort`` when the URL has none.
    ///
    /// - Throws: ``CourierError/Kind/invalidURL`` for a URL that is not `http` with a host.
    public init(url: URL) throws(CourierError) {
        guard url.scheme?.lowercased() == "http", let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw CourierError(.invalidURL, "The proxy URL \(Proxy.withoutCredentials(url)) is not an http URL with a host; write it as http://[user:password@]host[:port].")
        }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = url.port ?? Proxy.defaultPort
        self.credentials = url.user(percentEncoded: false).map {
            Credentials(user: $0, password: url.password(percentEncoded: false) ?? "")
        }
    }

    /// `host:port`, with the user name but never the password.
    public var description: String {
        "\(credentials.map { "\($0.user)@" } ?? "")\(host):\(port)"
    }

    /// The URL's text without its user name and password, for messages.
    private static func withoutCredentials(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<the proxy URL>" }
        parts.user = nil
        parts.password = nil
        return parts.string ?? "<the proxy URL>"
    }
}
