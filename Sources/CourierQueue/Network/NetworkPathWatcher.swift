import Courier
import NIOConcurrencyHelpers

#if canImport(Network)
import Dispatch
import Network
#endif

/// Calls back when the system's network path becomes usable again, so that the queue sends at
/// once instead of waiting for its next probe: Network.framework's `NWPathMonitor` on Apple
/// platforms, the kernel's link and address messages (netlink) on Linux. Elsewhere, or where
/// the system refuses the signal, there is none: the queue relies on its probes and on
/// ``DurableQueue/networkIsBack()``.
final class NetworkPathWatcher: Sendable {
    private let stopWatching: @Sendable () -> Void
    /// What the watcher saw last.
    private let edge: PathEdge

    private init(edge: PathEdge, stop: @escaping @Sendable () -> Void) {
        self.edge = edge
        self.stopWatching = stop
    }

    /// Starts watching; `onBack` runs, on the watcher's own thread or queue, each time the path
    /// turns usable after it was not.
    static func start(onBack: @escaping @Sendable () -> Void) -> NetworkPathWatcher? {
        #if canImport(Network)
        let monitor = NWPathMonitor()
        let edge = PathEdge(usable: true)
        monitor.pathUpdateHandler = { path in
            if edge.update(usable: path.status == .satisfied) { onBack() }
        }
        monitor.start(queue: DispatchQueue(label: "courier.queue.path"))
        return NetworkPathWatcher(edge: edge) { monitor.cancel() }
        #elseif os(Linux) && canImport(Glibc)
        // Subscribed before the first reading, so that no change falls between them.
        guard let (socket, netlink) = NetlinkWatcher.open() else { return nil }
        let edge = PathEdge(usable: NetworkInterface.offerPath(NetworkInterface.current()))
        netlink.start(socket) {
            if edge.update(usable: NetworkInterface.offerPath(NetworkInterface.current())) { onBack() }
        }
        return NetworkPathWatcher(edge: edge) { netlink.stop() }
        #else
        return nil
        #endif
    }

    /// Whether the path was usable when the watcher last looked.
    var sawUsablePath: Bool { edge.isUsable }

    /// Stops watching.
    func stop() { stopWatching() }

    /// A queue dropped without being closed stops its watcher too.
    deinit { stopWatching() }
}

/// Whether the path was usable at the last reading; tells when it turns usable again.
final class PathEdge: Sendable {
    private let usable: NIOLockedValueBox<Bool>

    init(usable: Bool) { self.usable = NIOLockedValueBox(usable) }

    /// The last reading.
    var isUsable: Bool { usable.withLockedValue { $0 } }

    /// Records a reading; `true` when the path was not usable and now is.
    func update(usable now: Bool) -> Bool {
        usable.withLockedValue { before in
            defer { before = now }
            return now && !before
        }
    }
}
