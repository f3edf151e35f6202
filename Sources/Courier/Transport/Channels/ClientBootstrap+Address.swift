import NIOCore
import NIOPosix

extension ClientBootstrap {
    /// Connects to `host`: an IP address (IPv6 with or without its brackets) directly, a name
    /// through the system's resolver, both address families tried as Happy Eyeballs does. An
    /// address needs no lookup, and no thread to run one on.
    package func connect(toHost host: String, port: Int) -> EventLoopFuture<any Channel> {
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let address = try? SocketAddress(ipAddress: literal, port: port) { return connect(to: address) }
        return connect(host: host, port: port)
    }
}
