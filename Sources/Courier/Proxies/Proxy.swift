import Foundation

/// A proxy that requests go through: an HTTP proxy, in plain text or over TLS, or a SOCKS5
/// proxy (see ``Kind``).
///
/// Through an HTTP proxy, the default transport opens each connection with `CONNECT host:port` to the proxy and
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
///
/// Through a SOCKS5 proxy (RFC 1928), each connection asks the proxy to connect to the
/// origin, with the user name and password of RFC 1929 when the proxy has ``credentials``
/// (they go to the proxy only), then speaks to the origin inside it, TLS end to end for https.
/// ``Kind/socks5h`` lets the proxy resolve the origin's name, as curl's `socks5h://` does;
/// ``Kind/socks5`` resolves it here and sends the address.
///
/// ```swift
/// configuration.proxy = try Proxy(url: URL(string: "socks5h://ada:s3cret@gateway.internal:1080")!)
/// ```
public struct Proxy: Sendable, Hashable, CustomStringConvertible {
    /// How a proxy is spoken to.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let scheme: String
        private init(_ scheme: String) { self.scheme = scheme }

        /// An HTTP proxy, which opens tunnels with `CONNECT`.
        public static let http = Kind("http")
        /// An HTTP proxy spoken to over TLS: its certificate is checked as an https origin's
        /// would be (under the client's TLS policy for the proxy's host), then `CONNECT` opens
        /// the tunnel inside that connection, and TLS to an https origin runs inside the tunnel.
        public static let https = Kind("https")
        /// A SOCKS5 proxy that is sent the origin's address, its name resolved here.
        public static let socks5 = Kind("socks5")
        /// A SOCKS5 proxy that is sent the origin's name and resolves it itself.
        public static let socks5h = Kind("socks5h")

        /// Whether the proxy speaks SOCKS5.
        public var isSOCKS: Bool { self == .socks5 || self == .socks5h }

        /// The URL scheme that names it, e.g. `socks5h`.
        public var description: String { scheme }

        /// The kind a proxy URL's scheme names, if Courier speaks it.
        init?(scheme: String) {
            switch scheme.lowercased() {
            case "http": self = .http
            case "https": self = .https
            case "socks5": self = .socks5
            case "socks5h": self = .socks5h
            default: return nil
            }
        }
    }

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
    /// How the proxy is spoken to; ``Kind/http`` by default.
    public var kind: Kind = .http

    /// Creates a proxy; give `user` and `password` when it requires authentication.
    public init(host: String, port: Int, user: String? = nil, password: String? = nil, kind: Kind = .http) {
        self.host = host
        self.port = port
        self.credentials = user.map { Credentials(user: $0, password: password ?? "") }
        self.kind = kind
    }

    /// A proxy from a URL such as `http://user:password@proxy.example:3128` or
    /// `socks5h://gateway.internal`; the scheme is its ``kind``, the user name and password,
    /// percent-decoded, its ``credentials``; the port is ``defaultPort`` when the URL has none.
    ///
    /// - Throws: ``CourierError/Kind/invalidURL`` for a URL that is not `http`, `https`,
    ///   `socks5` or `socks5h` with a host.
    public init(url: URL) throws(CourierError) {
        guard let kind = url.scheme.flatMap(Kind.init(scheme:)), let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw CourierError(
                .invalidURL,
                "The proxy URL \(Proxy.withoutCredentials(url)) is not an http, https, socks5 or socks5h URL with a host; write it as http://[user:password@]host[:port] (or https://, socks5h://…)."
            )
        }
        self.kind = kind
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = url.port ?? Proxy.defaultPort
        self.credentials = url.user(percentEncoded: false).map {
            Credentials(user: $0, password: url.password(percentEncoded: false) ?? "")
        }
    }

    /// `host:port`, with the user name but never the password; proxies other than plain
    /// HTTP ones with their scheme first (`socks5h://host:port`).
    public var description: String {
        "\(kind != .http ? "\(kind)://" : "")\(credentials.map { "\($0.user)@" } ?? "")\(host):\(port)"
    }

    /// The URL's text without its user name and password, for messages.
    private static func withoutCredentials(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<the proxy URL>" }
        parts.user = nil
        parts.password = nil
        return parts.string ?? "<the proxy URL>"
    }
}

extension Headers {
    /// The fields as they are sent inside `proxy`'s tunnel: without `Proxy-Authorization`,
    /// which only the origin would read there (the proxy's own credentials travel in its
    /// handshake); the fields themselves without a proxy. Every transport sends these.
    func insideTunnel(of proxy: Proxy?) -> Headers {
        guard proxy != nil, contains("Proxy-Authorization") else { return self }
        var fields = self
        fields.remove(name: "Proxy-Authorization")
        return fields
    }
}
