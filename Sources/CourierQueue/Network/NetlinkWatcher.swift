#if os(Linux) && canImport(Glibc)
import Foundation
import Glibc
import NIOConcurrencyHelpers

/// Wakes up when the kernel says a network link or address changed: a `NETLINK_ROUTE` socket
/// subscribed to the link and address groups, read by one thread that sleeps in `poll(2)`
/// until a message or ``stop()`` comes. What the messages say is not parsed: each burst of
/// them is one change, after which the caller reads the interfaces again.
final class NetlinkWatcher: Sendable {
    /// One end of the socket pair that stops the thread: closing it wakes `poll(2)`.
    private let stopper: NIOLockedValueBox<Int32?>

    private init(stopper: Int32) { self.stopper = NIOLockedValueBox(stopper) }

    /// Opens and subscribes the socket; `nil` when the system refuses it (a sandbox without
    /// netlink, a container's seccomp profile). Nothing runs before ``start(_:onChange:)``, so
    /// a caller reads the first state after subscribing and misses no change.
    static func open() -> (NetlinkSocket, NetlinkWatcher)? {
        guard let socket = NetlinkSocket.subscribe() else { return nil }
        var ends: [Int32] = [-1, -1]
        let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, kind, 0, &ends) == 0 else {
            close(socket.descriptor)
            return nil
        }
        return (NetlinkSocket(descriptor: socket.descriptor, wake: ends[0]), NetlinkWatcher(stopper: ends[1]))
    }

    /// Starts the thread that calls `onChange` after each burst of messages, until ``stop()``.
    func start(_ socket: NetlinkSocket, onChange: @escaping @Sendable () -> Void) {
        let thread = Thread { socket.watch(onChange: onChange) }
        thread.name = "courier.queue.netlink"
        thread.start()
    }

    /// Stops the thread, which closes the socket on its way out; calling it again does nothing.
    func stop() {
        stopper.withLockedValue { descriptor in
            if let open = descriptor { close(open) }
            descriptor = nil
        }
    }
}

/// The subscribed socket and the watched end of the stop pair, both closed by ``watch(onChange:)``.
struct NetlinkSocket: Sendable {
    let descriptor: Int32
    var wake: Int32 = -1

    // Values of the Linux kernel's user-space ABI (linux/netlink.h, linux/rtnetlink.h), which
    // the Glibc module does not bring in.
    private static let netlinkRoute: Int32 = 0
    private static let linkGroup: UInt32 = 0x1
    private static let ipv4AddressGroup: UInt32 = 0x10
    private static let ipv6AddressGroup: UInt32 = 0x100

    /// `struct sockaddr_nl`: family, padding, port id (0: the kernel assigns one), groups.
    private struct Address {
        var family = sa_family_t(AF_NETLINK)
        var padding: UInt16 = 0
        var portID: UInt32 = 0
        var groups: UInt32 = NetlinkSocket.linkGroup | NetlinkSocket.ipv4AddressGroup | NetlinkSocket.ipv6AddressGroup
    }

    /// A non-blocking route socket bound to the link and address groups, or `nil`.
    static func subscribe() -> NetlinkSocket? {
        let kind = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let descriptor = socket(AF_NETLINK, kind, netlinkRoute)
        guard descriptor >= 0 else { return nil }
        var address = Address()
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
        guard bound == 0 else {
            close(descriptor)
            return nil
        }
        return NetlinkSocket(descriptor: descriptor)
    }

    /// Sleeps until messages or the stop come; drains the messages and calls `onChange`.
    /// Closes both descriptors when stopped or when the socket fails.
    func watch(onChange: @Sendable () -> Void) {
        defer {
            close(descriptor)
            close(wake)
        }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            var watched = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&watched, nfds_t(watched.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            // The stop pair's other end closed: stop.
            if watched[1].revents != 0 || watched[0].revents & Int16(POLLNVAL) != 0 { return }
            // A burst of messages is one change. An overrun (ENOBUFS, reported as POLLERR) lost
            // some, which is a change too. Bounded: a socket that never runs dry is read again
            // on the next wake-up.
            for _ in 0..<256 {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count >= 0 || errno == ENOBUFS || errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                return  // the socket itself failed: no more signals, the queue keeps its probes
            }
            onChange()
        }
    }
}
#endif
