#if canImport(Network)
import Courier
import Dispatch
import Network
import NIOConcurrencyHelpers

/// Calls back when the system's network path becomes usable again (Network.framework's
/// `NWPathMonitor`), so that the queue sends at once instead of waiting for its next probe.
final class NetworkPathWatcher: Sendable {
    private let monitor: NWPathMonitor

    private init(monitor: NWPathMonitor) { self.monitor = monitor }

    /// Starts watching; `onBack` runs each time the path turns satisfied after it was not.
    static func start(onBack: @escaping @Sendable () async -> Void) -> NetworkPathWatcher? {
        let monitor = NWPathMonitor()
        let wasSatisfied = ManagedAtomicFlag()
        monitor.pathUpdateHandler = { path in
            let satisfied = path.status == .satisfied
            if satisfied && !wasSatisfied.exchange(satisfied) {
                Task { await onBack() }
            } else if !satisfied {
                _ = wasSatisfied.exchange(false)
            }
        }
        monitor.start(queue: DispatchQueue(label: "courier.queue.path"))
        return NetworkPathWatcher(monitor: monitor)
    }

    /// Stops watching.
    func stop() { monitor.cancel() }
}

/// A Boolean behind a lock, swapped atomically.
private final class ManagedAtomicFlag: Sendable {
    private let value = NIOLockedValueBox(true)
    func exchange(_ new: Bool) -> Bool {
        value.withLockedValue { old in
            defer { old = new }; return old
        }
    }
}
#else
/// On platforms without Network.framework there is no system path signal: the queue relies on
/// its probes and on ``DurableQueue/networkIsBack()``.
final class NetworkPathWatcher: Sendable {
    /// Returns `nil`: nothing to watch.
    static func start(onBack: @escaping @Sendable () async -> Void) -> NetworkPathWatcher? { nil }

    /// Does nothing.
    func stop() {}
}
#endif
