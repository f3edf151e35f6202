#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The hosts that are reached directly, without a proxy: `NO_PROXY`'s list, read as curl reads
/// it, with ports as Go's and Python's readers take them.
///
/// The list is split at commas and white space. Each entry is one of:
/// - `*`: every host;
/// - a host name (`example.com`, `.example.com`, `localhost`): that host and every name under
///   it (`www.example.com`), not a name that merely ends the same way (`notexample.com`); a
///   leading or trailing dot changes nothing;
/// - an IP address (`10.1.2.3`, `::1`, `[::1]`) or a network in CIDR form (`10.0.0.0/8`,
///   `fd00::/8`): a host written as an address inside it (a name is not resolved to be
///   compared);
/// - any of these with `:PORT` (`example.com:8080`, `[::1]:8443`): only requests to that port.
///
/// Names are compared without case. Entries that are none of these (`10.0.0.0/99`, `a b:x`)
/// are left out, as curl leaves them, and listed in ``ignoredEntries`` so that a caller can say
/// so.
package struct ProxyBypass: Sendable, Hashable {
    package enum Entry: Sendable, Hashable {
        case everything
        case domain(String, port: Int?)
        case network(address: [UInt8], prefixLength: Int, port: Int?)
    }

    /// The entries understood, in the list's order.
    package let entries: [Entry]
    /// The entries that could not be read, as written.
    package let ignoredEntries: [String]

    /// A list in `NO_PROXY`'s syntax; an empty text bypasses nothing.
    package init(_ list: String) {
        var entries: [Entry] = []
        var ignored: [String] = []
        for token in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\n" }) {
            if let entry = ProxyBypass.entry(String(token)) { entries.append(entry) } else { ignored.append(String(token)) }
        }
        self.entries = entries
        self.ignoredEntries = ignored
    }

    /// Whether a request to `host` (a name, or an address with or without brackets) on `port`
    /// goes without a proxy.
    package func contains(host: String, port: Int) -> Bool {
        let name = ProxyBypass.normalized(host)
        let address = ProxyBypass.address(name)
        return entries.contains { entry in
            switch entry {
            case .everything:
                return true
            case .domain(let domain, let wanted):
                guard wanted == nil || wanted == port else { return false }
                return name == domain || name.hasSuffix("." + domain)
            case .network(let network, let prefixLength, let wanted):
                guard wanted == nil || wanted == port, let address, address.count == network.count else { return false }
                return ProxyBypass.prefix(of: address, length: prefixLength) == ProxyBypass.prefix(of: network, length: prefixLength)
            }
        }
    }

    // MARK: Reading an entry

    private static func entry(_ token: String) -> Entry? {
        if token == "*" { return .everything }
        var text = Substring(token)
        var port: Int?
        if text.hasPrefix("[") {
            // [v6], [v6]:port, [v6]/prefix (as some lists write it)
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            let inside = text[text.index(after: text.startIndex)..<close]
            if rest.hasPrefix(":") {
                guard let number = portNumber(rest.dropFirst()) else { return nil }
                port = number
                text = inside
            } else if rest.isEmpty || rest.hasPrefix("/") {
                text = inside + rest
            } else {
                return nil
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            // name:port or v4:port; a bare IPv6 address has more than one colon.
            guard let number = portNumber(text[text.index(after: colon)...]) else { return nil }
            port = number
            text = text[..<colon]
        }
        let (hostPart, prefixPart) = split(text)
        if let address = address(String(hostPart)) {
            let bits = address.count * 8
            guard let prefixPart else { return .network(address: address, prefixLength: bits, port: port) }
            guard let length = Int(prefixPart), (0...bits).contains(length), prefixPart.allSatisfy(\.isASCII) else { return nil }
            return .network(address: address, prefixLength: length, port: port)
        }
        guard prefixPart == nil else { return nil }
        let name = normalized(String(hostPart))
        guard !name.isEmpty, name.utf8.allSatisfy(isNameByte) else { return nil }
        return .domain(name, port: port)
    }

    private static func split(_ text: Substring) -> (Substring, Substring?) {
        guard let slash = text.firstIndex(of: "/") else { return (text, nil) }
        return (text[..<slash], text[text.index(after: slash)...])
    }

    private static func portNumber(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 5, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(text), number <= 65_535 else {
            return nil
        }
        return number
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"): true
        default: false
        }
    }

    /// Lower case, without brackets and without leading or trailing dots.
    private static func normalized(_ host: String) -> String {
        var host = Substring(host.lowercased())
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        while host.hasPrefix(".") { host = host.dropFirst() }
        while host.hasSuffix(".") { host = host.dropLast() }
        return String(host)
    }

    /// The bytes of an IPv4 or IPv6 address written in its usual form; `nil` for a name.
    static func address(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    /// The first `length` bits of `bytes`, the rest set to zero.
    private static func prefix(of bytes: [UInt8], length: Int) -> [UInt8] {
        bytes.indices.map { index in
            let kept = min(max(length - index * 8, 0), 8)
            return kept == 0 ? 0 : bytes[index] & UInt8(truncatingIfNeeded: 0xFF << (8 - kept))
        }
    }
}
