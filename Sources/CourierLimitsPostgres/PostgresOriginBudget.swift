import Courier
import CourierPostgres
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// Limits on each origin that every process on one PostgreSQL database shares: a politeness
/// budget for a fleet.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.originBudget = try PostgresOriginBudget(
///     url: URL(string: "postgres://app@db.internal/app")!, maximumConcurrentRequestsPerOrigin: 8
/// )
/// ```
///
/// - **Concurrency.** At most ``maximumConcurrentRequestsPerOrigin`` exchanges with one origin are
///   in flight at once across every process using the database. Each holds a lease, renewed while
///   it runs and given back when it ends; a process that dies frees its leases within
///   ``leaseDuration``.
/// - **Rate.** With ``maximumRequestsPerSecondPerOrigin``, exchanges start at most that often on
///   average, in bursts of at most ``burst``, counted for the whole fleet.
/// - **The server's word.** A `429` or `503` with `Retry-After` seen by any process pauses the
///   origin for every process until then (a day at most). `RateLimit` and `RateLimit-Policy`
///   fields (draft-ietf-httpapi-ratelimit-headers, and its earlier forms) set how many requests
///   are left until the window is renewed: when none are, every process waits for the reset.
///
/// Processes waiting for a share are woken by `LISTEN`/`NOTIFY` when one is released, and ask
/// again at least every half second. Times are the database server's, so hosts whose clocks
/// differ agree.
///
/// While the database cannot be reached, the budget grants every request at once, so that each
/// process falls back to its own limits (``Courier/Limits``); the outage is reported once to
/// `onAvailabilityChange`, and the budget is used again, by itself, once the server answers.
///
/// The tables (`courier_limits_origins`, `courier_limits_leases`, `courier_limits_schema`) are
/// created on first use, and migrated under a lock.
public struct PostgresOriginBudget: OriginBudget {
    /// Whether the database answers.
    public enum Availability: Sendable, Hashable {
        /// It answers again after an outage: the shared limits apply again.
        case available
        /// It cannot be reached, for `reason`; each process keeps to its own limits meanwhile.
        case unavailable(reason: String)
    }

    /// The database's URL without its password.
    public let location: String
    /// The most exchanges with one origin in flight at once, across every process.
    public let maximumConcurrentRequestsPerOrigin: Int
    /// The most exchanges started per second with one origin, on average, across every
    /// process; `nil` for no such limit.
    public let maximumRequestsPerSecondPerOrigin: Double?
    /// The most exchanges started at once when the rate has been unused for a while.
    public let burst: Int
    /// How long a lease lasts unless its process renews it.
    public let leaseDuration: Duration

    private let database: SharedDatabase
    private let leases: HeldLeases
    private let signals: ReleaseSignals
    private let listener: ChannelListener

    /// A budget in the database at `url` (`postgres://user:password@host:5432/database`, with
    /// `?sslmode=` and `connect_timeout=` as for the queue). Nothing is connected until first
    /// use.
    ///
    /// - Parameters:
    ///   - maximumConcurrentRequestsPerOrigin: exchanges with one origin in flight at once across
    ///     the fleet, 1 or more.
    ///   - maximumRequestsPerSecondPerOrigin: the fleet's rate for one origin; `nil` for none.
    ///   - burst: the most started at once under the rate; by default the rate rounded up.
    ///   - leaseDuration: how long a lease outlives a process that stopped renewing it; 30
    ///     seconds by default, at least 3.
    ///   - statementTimeout: how long one statement may take before the database counts as
    ///     unreachable; 5 seconds by default.
    ///   - onAvailabilityChange: called once when an outage begins and once when it ends.
    /// - Throws: ``CourierError/Kind/invalidConfiguration`` for a URL that is not a `postgres://`
    ///   URL, or a limit out of range.
    public init(
        url: URL, maximumConcurrentRequestsPerOrigin: Int, maximumRequestsPerSecondPerOrigin: Double? = nil, burst: Int? = nil,
        leaseDuration: Duration = .seconds(30), statementTimeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "courier.limits.postgres", factory: { _ in SwiftLogNoOpLogHandler() }),
        onAvailabilityChange: @escaping @Sendable (Availability) -> Void = { _ in }
    ) throws(CourierError) {
        guard maximumConcurrentRequestsPerOrigin >= 1 else {
            throw CourierError(
                .invalidConfiguration, "maximumConcurrentRequestsPerOrigin is 1 or more; \(maximumConcurrentRequestsPerOrigin) was given."
            )
        }
        if let rate = maximumRequestsPerSecondPerOrigin, !(rate > 0 && rate <= PostgresOriginBudget.highestRate) {
            throw CourierError(
                .invalidConfiguration,
                "maximumRequestsPerSecondPerOrigin is more than 0 and at most \(Int(PostgresOriginBudget.highestRate)); \(rate) was given."
            )
        }
        let burst = burst ?? maximumRequestsPerSecondPerOrigin.map { max(1, Int($0.rounded(.up))) } ?? 1
        guard burst >= 1 else { throw CourierError(.invalidConfiguration, "burst is 1 or more; \(burst) was given.") }
        guard leaseDuration >= .seconds(3) else {
            throw CourierError(.invalidConfiguration, "leaseDuration is at least 3 seconds; \(leaseDuration) was given.")
        }
        guard statementTimeout > .zero else {
            throw CourierError(.invalidConfiguration, "A statement timeout must be positive; \(statementTimeout) was given.")
        }
        let target = try PostgresLocation(url, purpose: "limits")
        location = target.redacted
        self.maximumConcurrentRequestsPerOrigin = maximumConcurrentRequestsPerOrigin
        self.maximumRequestsPerSecondPerOrigin = maximumRequestsPerSecondPerOrigin
        self.burst = burst
        self.leaseDuration = leaseDuration
        let signals = ReleaseSignals()
        self.signals = signals
        database = SharedDatabase(
            location: target, schema: LimitsSchema.tables, failureKind: .invalidState, statementTimeout: statementTimeout, logger: logger,
            report: { reason in
                // Requests that waited for a share are granted now, and know it at once.
                if reason != nil { signals.signal(nil) }
                onAvailabilityChange(reason.map { .unavailable(reason: $0) } ?? .available)
            }
        )
        leases = HeldLeases(holder: UUID().uuidString, duration: leaseDuration)
        listener = ChannelListener(
            location: target, channel: LimitsSchema.channel, logger: logger, listening: { signals.signal(nil) },
            heard: { origin in signals.signal(origin) }, lost: { signals.signal(nil) }
        )
    }

    /// The longest a waiting request goes without asking again.
    static let pollInterval: Duration = .milliseconds(500)
    /// The highest rate taken: a million requests a second.
    static let highestRate = 1_000_000.0

    public func permit(for origin: String, until deadline: ContinuousClock.Instant?) async throws -> OriginPermit {
        let holder = leases.holder
        let (concurrency, rate, burst) = (maximumConcurrentRequestsPerOrigin, maximumRequestsPerSecondPerOrigin, Double(self.burst))
        let seconds = leaseDuration.timeInterval
        while true {
            try Task.checkCancellation()
            if let deadline, ContinuousClock.now >= deadline { throw CourierError(.timeout, "The shared origin budget gave no share in time.") }
            let answer: (lease: Int64?, wait: Double?)
            do {
                answer = try await database.perform("admit a request") { client, logger in
                    let rows = try await client.query(
                        "SELECT lease, wait FROM courier_limits_acquire(\(origin), \(holder), \(concurrency), \(rate), \(burst), \(seconds))",
                        logger: logger
                    ).collect()
                    return try rows.first?.decode((Int64?, Double?).self) ?? (nil, nil)
                }
            } catch {
                if error.kind == .cancelled || Task.isCancelled { throw CancellationError() }
                // The database cannot say: each process keeps to its own limits meanwhile.
                database.logger.debug("shared limits skipped", metadata: ["origin": "\(origin)", "error": "\(error)"])
                return .unrestricted
            }
            if let lease = answer.lease {
                leases.add(lease)
                leases.startRenewing(with: database)
                return OriginPermit { [leases, database] in leases.release(lease, of: origin, with: database) }
            }
            // A wait the database gives is a day at most, whatever another process wrote there.
            var pause = answer.wait.map { Duration.milliseconds(Int64($0.isFinite ? min(max(0, $0), 86_400) * 1000 : 1000) + 1) } ?? Self.pollInterval
            if let deadline { pause = min(pause, max(.zero, deadline - .now)) }
            if answer.wait == nil {
                await signals.wait(for: origin, atMost: pause)
            } else {
                try await Task.sleep(for: pause)
            }
        }
    }

    /// Keeps what the response says for the origin; it is written when the exchange gives its
    /// lease back, just before, so that the next exchange admitted in its place already keeps
    /// to it.
    public func record(status: Int, headers: Headers, from origin: String) {
        guard let notice = BudgetNotice.read(status: status, headers: headers) else { return }
        leases.keep(notice, for: origin)
    }

    /// Closes the connections; the budget grants every request from then on.
    public func shutdown() async {
        listener.stop()
        leases.stopRenewing()
        await database.shutdown()
    }
}

/// The leases this process holds, what responses said of their origins since, and the task
/// that renews the leases.
final class HeldLeases: Sendable {
    private struct State {
        var held: Set<Int64> = []
        var notices: [String: BudgetNotice] = [:]
        var renewal: Task<Void, Never>?
    }

    /// The process's name in `courier_limits_leases.holder`.
    let holder: String
    let duration: Duration
    private let state = NIOLockedValueBox(State())

    init(holder: String, duration: Duration) {
        self.holder = holder
        self.duration = duration
    }

    deinit {
        state.withLockedValue { $0.renewal?.cancel() }
    }

    func add(_ lease: Int64) {
        state.withLockedValue { _ = $0.held.insert(lease) }
    }

    /// Keeps `notice` for `origin` until a lease of that origin is given back; a pause is
    /// never shortened by a later notice.
    func keep(_ notice: BudgetNotice, for origin: String) {
        state.withLockedValue { state in
            var merged = notice
            if let earlier = state.notices[origin]?.pause { merged.pause = max(earlier, notice.pause ?? .zero) }
            state.notices[origin] = merged
        }
    }

    /// Gives `lease` of `origin` back, without waiting: first what responses said of the origin,
    /// then the release. A release that fails leaves the lease to expire.
    func release(_ lease: Int64, of origin: String, with database: SharedDatabase) {
        let notice = state.withLockedValue { state in
            state.held.remove(lease)
            return state.notices.removeValue(forKey: origin)
        }
        Task {
            if let notice {
                let pause = notice.pause?.timeInterval
                try? await database.perform("record what the server said") { client, logger in
                    _ = try await client.query(
                        """
                        SELECT courier_limits_record(\(origin), \(pause), \(notice.remaining), \(notice.reset), \(notice.quota), \(notice.window))
                        """,
                        logger: logger
                    ).collect()
                }
            }
            try? await database.perform("release a lease") { client, logger in
                _ = try await client.query("DELETE FROM courier_limits_leases WHERE id = \(lease)", logger: logger).collect()
            }
        }
    }

    /// Renews the held leases every third of their duration, from the first one on.
    func startRenewing(with database: SharedDatabase) {
        state.withLockedValue { state in
            guard state.renewal == nil else { return }
            let (holder, duration) = (holder, duration)
            let seconds = duration.timeInterval
            state.renewal = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: duration / 3)
                    guard let held = self?.state.withLockedValue({ Array($0.held) }), !Task.isCancelled else { return }
                    guard !held.isEmpty else { continue }
                    try? await database.perform("renew leases") { client, logger in
                        _ = try await client.query(
                            """
                            UPDATE courier_limits_leases SET expires_at = extract(epoch FROM clock_timestamp()) + \(seconds)
                            WHERE holder = \(holder) AND id = ANY(\(held))
                            """,
                            logger: logger
                        ).collect()
                    }
                }
            }
        }
    }

    func stopRenewing() {
        state.withLockedValue { $0.renewal?.cancel() }
    }
}
