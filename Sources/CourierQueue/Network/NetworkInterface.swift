#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One address of a network interface, as far as the queue needs it to tell whether this host
/// can reach another: the interface's state, and whether the address is one a packet can leave
/// the link with.
struct NetworkInterface: Equatable, Sendable {
    /// The kind of address an interface entry carries.
    enum Address: Equatable, Sendable {
        /// An IPv4 or IPv6 address outside the link-local ranges.
        case routable
        /// 169.254.0.0/16 or fe80::/10: reaches the link only, as when no address was assigned.
        case linkLocal
        /// No IP address (the interface's own entry) or one of another family.
        case none
    }

    var name: String
    var isUp: Bool
    var isRunning: Bool
    var isLoopback: Bool
    var address: Address

    /// Whether any of `interfaces` offers a way off this host: an interface that is up, has a
    /// carrier (running), is not the loopback, and has a routable address.
    static func offerPath(_ interfaces: [NetworkInterface]) -> Bool {
        interfaces.contains { $0.isUp && $0.isRunning && !$0.isLoopback && $0.address == .routable }
    }

    /// The address kind of the IPv4 address whose bytes, in network order, are `bytes`.
    static func kind(ipv4 bytes: (UInt8, UInt8)) -> Address {
        bytes.0 == 169 && bytes.1 == 254 ? .linkLocal : .routable
    }

    /// The address kind of the IPv6 address whose first two bytes are `bytes`.
    static func kind(ipv6 bytes: (UInt8, UInt8)) -> Address {
        bytes.0 == 0xFE && bytes.1 & 0xC0 == 0x80 ? .linkLocal : .routable
    }

    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    /// The interfaces' addresses now (`getifaddrs`); empty when they cannot be read.
    static func current() -> [NetworkInterface] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0, let first else { return [] }
        defer { freeifaddrs(first) }
        var found: [NetworkInterface] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(bitPattern: UInt32(entry.pointee.ifa_flags))
            found.append(
                NetworkInterface(
                    name: String(cString: entry.pointee.ifa_name),
                    isUp: flags & Int32(IFF_UP) != 0,
                    isRunning: flags & Int32(IFF_RUNNING) != 0,
                    isLoopback: flags & Int32(IFF_LOOPBACK) != 0,
                    address: address(of: entry.pointee.ifa_addr)
                )
            )
        }
        return found
    }

    private static func address(of socketAddress: UnsafeMutablePointer<sockaddr>?) -> Address {
        guard let socketAddress else { return .none }
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                let value = UInt32(bigEndian: address.pointee.sin_addr.s_addr)
                return kind(ipv4: (UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16)))
            }
        case AF_INET6:
            return socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                withUnsafeBytes(of: address.pointee.sin6_addr) { kind(ipv6: ($0[0], $0[1])) }
            }
        default:
            return .none
        }
    }
    #endif
}
