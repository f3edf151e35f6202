import Foundation

/// The proxies the environment names, read as curl reads them.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.proxyEnvironment = .current   // http_proxy, https_proxy, all_proxy, no_proxy
/// ```
///
/// For an `http` URL: `http_proxy` (in lower case only: a web server hands a request's
/// `Proxy:` header to CGI programs as `HTTP_PROXY`, so that name cannot be trusted), else
/// `all_proxy`, else `ALL_PROXY`. For an `https` URL: `https_proxy`, else `HTTPS_PROXY`, else
/// `all_proxy`, else `ALL_PROXY`. The first variable that is set decides, even when it is set
/// to nothing, which then means no proxy. `no_proxy`, else `NO_PROXY`, lists the hosts reached
/// directly (see ``ProxyBypass``). A proxy written without a scheme (`proxy.internal:3128`) is
/// an HTTP proxy, as curl reads it.
public struct ProxyEnvironment: Sendable, Hashable {
    /// The proxy for `http` URLs as written, `nil` when none is set; `""` when set to nothing.
    package let http: String?
    /// The proxy for `https` URLs as written, `nil` when none is set; `""` when set to nothing.
    package let https: String?
    /// The hosts reached directly.
    package let bypass: ProxyBypass

    /// The proxies the process's environment names, as it is when this is read.
    public static var current: ProxyEnvironment { ProxyEnvironment(ProcessInfo.processInfo.environment) }

    /// The proxies `variables` name (a process's environment, or a dictionary of its own).
    public init(_ variables: [String: String]) {
        let all = variables["all_proxy"] ?? variables["ALL_PROXY"]
        http = variables["http_proxy"] ?? all
        https = variables["https_proxy"] ?? variables["HTTPS_PROXY"] ?? all
        bypass = ProxyBypass(variables["no_proxy"] ?? variables["NO_PROXY"] ?? "")
    }

    /// Whether any variable names a proxy.
    public var namesAProxy: Bool {
        !(http ?? "").isEmpty || !(https ?? "").isEmpty
    }

    /// The proxy a request to `url` goes through; `nil` to go directly.
    ///
    /// - Throws: ``CourierError/Kind/proxy`` when the variable that applies names a proxy that
    ///   cannot be used (not a URL, or a kind of proxy Courier does not speak): the request
    ///   fails rather than going around the proxy the environment asks for.
    public func proxy(for url: URL) throws(CourierError) -> Proxy? {
        guard let scheme = url.scheme?.lowercased(), url.host(percentEncoded: false) != nil else { return nil }
        let written: String?
        switch scheme {
        case "http", "ws": written = http
        case "https", "wss": written = https
        default: return nil
        }
        guard let written, !written.isEmpty else { return nil }
        if bypasses(url) { return nil }
        return try ProxyEnvironment.proxy(written, variable: scheme == "http" || scheme == "ws" ? "http_proxy" : "https_proxy")
    }

    /// Whether `no_proxy` lists the host and port of `url`.
    package func bypasses(_ url: URL) -> Bool {
        guard let host = url.host(percentEncoded: false) else { return false }
        let secure = ["https", "wss"].contains(url.scheme?.lowercased() ?? "")
        return bypass.contains(host: host, port: url.port ?? (secure ? 443 : 80))
    }

    /// A proxy as an environment variable writes it.
    private static func proxy(_ written: String, variable: String) throws(CourierError) -> Proxy {
        let text = written.contains("://") ? written : "http://" + written
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            throw CourierError(.proxy, "The proxy the environment names for \(variable) (or all_proxy) is not a URL; write it as http://[user:password@]host[:port].")
        }
        guard Proxy.Kind(scheme: scheme) != nil else {
            throw CourierError(
                .proxy,
                "The environment names a \(scheme) proxy for \(variable) (or all_proxy), which Courier does not speak; name an http://, https://, socks5:// or socks5h:// proxy, or list the host in NO_PROXY."
            )
        }
        do {
            return try Proxy(url: url)
        } catch {
            throw CourierError(.proxy, error.message)
        }
    }
}
