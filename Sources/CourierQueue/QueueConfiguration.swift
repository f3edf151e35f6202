import Courier
import Foundation

/// Where a ``DurableQueue`` keeps its records and how it delivers them.
///
/// ```swift
/// var configuration = QueueConfiguration(path: "/var/lib/app/outbox.sqlite")
/// configuration.maximumAge = .seconds(24 * 3600)
/// let queue = try await client.openQueue(configuration)
/// ```
public struct QueueConfiguration: Sendable {
    /// Where the records are kept; the SQLite file at ``defaultPath`` by default.
    public var storage: QueueStorage
    /// The SQLite database file; created, with its folder, when missing. Setting it sets
    /// ``storage`` to that file; for other storage it reads the storage's description.
    public var path: String {
        get { storage.sqlitePath ?? storage.description }
        set { storage = .sqlite(path: newValue) }
    }
    /// The most records waiting or in flight at once; past it ``DurableQueue/enqueue(_:)``
    /// throws ``CourierError/Kind/queueFull``. 10,000 by default.
    public var maximumRecords: Int
    /// How long a record may wait before it expires, unless its request says otherwise; one
    /// week by default, `nil` for never.
    public var maximumAge: Duration?
    /// The backoff between attempts (``CourierRetryPolicy/baseDelay``, ``CourierRetryPolicy/maximumDelay``,
    /// ``CourierRetryPolicy/maximumRetryAfter``) and the most attempts before a record fails
    /// (``CourierRetryPolicy/maximumAttempts``). A record's age, not ``CourierRetryPolicy/maximumTotalDelay``,
    /// bounds its waiting.
    public var retryPolicy: CourierRetryPolicy
    /// A URL whose answer, whatever its status, proves the network is back; `nil`, the
    /// default, probes by opening a TCP connection to the waiting request's host.
    public var healthURL: URL?
    /// The longest a reachability probe waits for its connection or answer; 5 seconds by default.
    public var probeTimeout: Duration
    /// The most records this queue sends at once; 32 by default. Other workers on the same
    /// storage take the rest.
    public var maximumConcurrentDeliveries: Int
    /// How long a worker's hold on a record it sends lasts unless renewed (it is renewed at a
    /// third of it while the attempt runs); when the worker dies, another sends the record
    /// again once this has passed, or at once when the dead worker ran on the same host.
    /// 30 seconds by default.
    public var leaseDuration: Duration
    /// Whether opening the queue starts delivering: records whose worker died are sent again,
    /// and everything due is sent. `true` by default; with
    /// `false` the queue only lists and edits records until ``DurableQueue/run(deadline:)``.
    public var deliversOnOpen: Bool
    /// Where delivery finds the credential headers that were taken out of requests before
    /// they were written (``QueuedRequest/credentialHeaderNames``) when the queue that
    /// enqueued them is gone; `nil`, the default, for nowhere. A request that lacks one is not
    /// sent: it waits, see ``QueueEvent/needsCredentials(_:missing:)``.
    public var credentials: (any QueueCredentialSource)?
    /// The present, for due times and expiry; tests pass their own.
    public var now: @Sendable () -> Date
    /// The clock the queue waits on between attempts; tests pass one that does not really sleep.
    public var clock: any Clock<Duration>

    /// Creates a configuration for the database at `path`, by default
    /// ``defaultPath``.
    public init(path: String = QueueConfiguration.defaultPath) {
        self.init(storage: .sqlite(path: path))
    }

    /// Creates a configuration for `storage`.
    public init(storage: QueueStorage) {
        self.storage = storage
        self.maximumConcurrentDeliveries = 32
        self.leaseDuration = .seconds(30)
        self.maximumRecords = 10_000
        self.maximumAge = .seconds(7 * 24 * 3600)
        self.retryPolicy = CourierRetryPolicy(maximumAttempts: 50, baseDelay: .seconds(1), maximumDelay: .seconds(300))
        self.healthURL = nil
        self.probeTimeout = .seconds(5)
        self.deliversOnOpen = true
        self.credentials = nil
        self.now = { Date() }
        self.clock = ContinuousClock()
    }

    /// `Courier/queue.sqlite` in the user's application support folder
    /// (`~/.local/share` on Linux), or in the temporary folder when there is none.
    public static var defaultPath: String {
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return base.appendingPathComponent("Courier").appendingPathComponent("queue.sqlite").path
    }
}

extension QueueConfiguration {
    /// Refuses values the queue cannot work with.
    func validate() throws(CourierError) {
        guard maximumConcurrentDeliveries >= 1 else {
            throw CourierError(
                .invalidConfiguration,
                "QueueConfiguration.maximumConcurrentDeliveries is \(maximumConcurrentDeliveries); it must be at least 1."
            )
        }
        guard leaseDuration >= .seconds(1), leaseDuration <= .seconds(24 * 3600) else {
            throw CourierError(
                .invalidConfiguration, "QueueConfiguration.leaseDuration is \(leaseDuration); it must be between 1 second and 24 hours."
            )
        }
    }
}
