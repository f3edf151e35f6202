import Foundation

/// The parts of a URL that cookie rules look at: the canonical host, the path, whether the
/// scheme is secure, and whether the host is an IP address.
struct CookieTarget: Sendable, Hashable {
    /// The host, lower-cased, without IPv6 brackets.
    let host: String
    /// The percent-encoded path; `/` when the URL has none.
    let path: String
    /// Whether the scheme is https (or wss).
    let isSecure: Bool
    /// Whether the host is an IPv4 or IPv6 address, which only ever matches itself.
    let isIPAddress: Bool

    /// `nil` for a URL without a host.
    init?(_ url: URL) {
        guard var host = url.host(percentEncoded: false)?.lowercased(), !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        let path = url.path(percentEncoded: true)
        self.path = path.isEmpty ? "/" : path
        let scheme = url.scheme?.lowercased()
        self.isSecure = scheme == "https" || scheme == "wss"
        self.isIPAddress = CookieTarget.isIPAddress(host)
    }

    /// RFC 6265 §5.1.4's default path: the request path up to, not including, its last `/`,
    /// or `/` when that leaves nothing.
    var defaultPath: String {
        guard path.hasPrefix("/"), let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), slash != path.utf8.startIndex else {
            return "/"
        }
        return String(path[..<slash])
    }

    /// An IPv6 address (it has a colon), or a name whose last label is a number, which URL
    /// parsers read as IPv4.
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let last = host.split(separator: ".", omittingEmptySubsequences: true).last ?? ""
        return !last.isEmpty && last.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
