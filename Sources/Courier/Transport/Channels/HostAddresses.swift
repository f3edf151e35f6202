import Foundation
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves a host name with the system's resolver, off the caller's thread: for a `socks5`
/// proxy, which is sent an address rather than a name.
enum HostAddresses {
    /// The address to connect to for `host`: its first IPv4 address, else its first IPv6 one.
    ///
    /// - Throws: ``CourierError/Kind/connectionFailed`` with ``ConnectionFailure/hostNotFound``
    ///   when the name does not resolve.
    static func resolve(_ host: String, port: Int) async throws -> [UInt8] {
        let addresses = try await NIOThreadPool.singleton.runIfActive { lookUp(host) }
        guard let chosen = addresses.first(where: { $0.count == 4 }) ?? addresses.first else {
            var error = CourierError(
                .connectionFailed,
                "The name \(host) could not be resolved here, to be sent to the socks5 proxy; check the name, or use socks5h:// to let the proxy resolve it."
            )
            error.connectionFailure = .hostNotFound
            error.requestMayHaveBeenSent = false
            throw error
        }
        return chosen
    }

    /// The addresses `getaddrinfo` lists for `host`, as bytes, in its order.
    private static func lookUp(_ host: String) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [[UInt8]] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        var bytes = v4.pointee.sin_addr
                        addresses.append(withUnsafeBytes(of: &bytes) { Array($0) })
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        var bytes = v6.pointee.sin6_addr
                        addresses.append(withUnsafeBytes(of: &bytes) { Array($0) })
                    }
                default:
                    break
                }
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}
