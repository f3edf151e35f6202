import Atomics
import NIOConcurrencyHelpers
import NIOCore

#if !canImport(Darwin)
import Synchronization
#endif

/// Fails exchanges whose server stays silent for longer than their read timeout: the one
/// read rule of Courier's own transport, on AsyncHTTPClient and on Courier's channels, HTTP/1.1
/// and HTTP/2 alike.
///
/// AsyncHTTPClient's own read timeout schedules an event-loop timer once the request is sent,
/// then cancels it and schedules a new one for every part of the response: three timers and
/// three cancellations for the smallest response. The watchdog keeps one timer per transport
/// instead, ticking only while exchanges are watched, and each exchange just records, without
/// a lock, when it last heard from the server.
///
/// An exchange's clock starts when its request has been sent in full, restarts with each part
/// of the response, and stops while a streaming reader holds a part it has not taken yet (see
/// ``Watch/pause()``), so that a slow reader is never blamed on the server. Each exchange has
/// its own timeout (the request's, else the client's). A silent exchange fails between its
/// timeout and one tick later (two when its loop runs late); a tick is a tenth of the shortest
/// timeout watched, between 5 ms and 1 s.
///
/// A watchdog ticks on one event loop and watches the exchanges whose response that loop
/// delivers (see ``ReadWatchdogs``): a loop held up by other work then delays both what it
/// hears and the check, and never makes an exchange look silent.
final class ReadWatchdog: Sendable {
    /// One exchange's clock.
    ///
    /// Its delegate's callbacks, which move the clock, all run on one event loop, one at a
    /// time; the watchdog only reads it.
    final class Watch: @unchecked Sendable {
        /// ``unsent`` until the request has been sent in full, ``paused`` while the reader
        /// holds a part, and otherwise when the server was last heard from (see ``Clock``).
        ///
        /// Stored in the watch itself where the standard library's atomics are available to
        /// every supported system (Linux), so that a watch is one allocation, not two.
        #if canImport(Darwin)
        fileprivate let state = ManagedAtomic<UInt64>(Watch.unsent)
        #else
        fileprivate let state = Synchronization.Atomic<UInt64>(Watch.unsent)
        #endif
        /// What fails the exchange. Written once by ``ReadWatchdog/start(_:failing:)`` before
        /// it takes the registry's lock, and read by ``ReadWatchdog/check()`` after taking it.
        fileprivate var failure: (@Sendable () -> Void)?
        private let clock: Clock
        /// The silence allowed, in nanoseconds.
        fileprivate let timeout: UInt64

        fileprivate static let unsent: UInt64 = 0
        fileprivate static let paused: UInt64 = 1

        fileprivate init(clock: Clock, timeout: Duration) {
            self.clock = clock
            self.timeout = UInt64(max(1, timeout.nanoseconds))
        }

        /// How often a watchdog must look at this exchange: a tenth of its timeout, between
        /// 5 ms and 1 s.
        fileprivate var tick: TimeAmount {
            .nanoseconds(Int64(min(max(timeout / 10, 5_000_000), 1_000_000_000)))
        }

        /// The request has been sent in full: the clock starts.
        func requestSent() {
            state.store(clock.now(), ordering: .relaxed)
        }

        /// The server sent something: restarts the clock if it runs.
        func heard() {
            guard state.load(ordering: .relaxed) > Watch.paused else { return }
            state.store(clock.now(), ordering: .relaxed)
        }

        /// Stops the clock while the reader holds a part: the connection is silent because
        /// nothing more is read, not because the server stalls.
        func pause() {
            guard state.load(ordering: .relaxed) != Watch.unsent else { return }
            state.store(Watch.paused, ordering: .relaxed)
        }

        /// The reader took the part it held: the clock starts again if the request was sent.
        func resume() {
            guard state.load(ordering: .relaxed) != Watch.unsent else { return }
            state.store(clock.now(), ordering: .relaxed)
        }

        /// When the clock started last, if it runs.
        fileprivate var since: UInt64? {
            let value = state.load(ordering: .relaxed)
            return value > Watch.paused ? value : nil
        }
    }

    /// Where the watchdog reads the time, in nanoseconds: `NIODeadline`'s uptime clock, or a
    /// test's own.
    struct Clock: Sendable {
        let read: @Sendable () -> UInt64

        /// The event loops' clock.
        static let uptime = Clock { NIODeadline.now().uptimeNanoseconds }

        /// Never 0 or 1, which mark a clock that does not run.
        func now() -> UInt64 { max(2, read()) }
    }

    private struct Registry {
        var watches: [ObjectIdentifier: Watch] = [:]
        var ticking = false
        /// The tick of the shortest timeout watched since the watchdog started ticking.
        var tick = TimeAmount.seconds(1)
        /// Whether the last tick ran late and checked nothing.
        var deferred = false
    }

    private let loop: any EventLoop
    private let clock: Clock
    private let registry = NIOLockedValueBox(Registry())

    /// A watchdog whose timer runs on `loop`.
    init(loop: any EventLoop, clock: Clock = .uptime) {
        self.loop = loop
        self.clock = clock
    }

    /// A clock for one exchange that may stay silent for `timeout`, to hand to
    /// ``start(_:failing:)`` once its task exists.
    func makeWatch(timeout: Duration) -> Watch {
        Watch(clock: clock, timeout: timeout)
    }

    /// Watches `watch` until ``end(_:)``; `fail` is called once if it stays silent too long.
    func start(_ watch: Watch, failing fail: @escaping @Sendable () -> Void) {
        watch.failure = fail
        let startsTicking = registry.withLockedValue { registry in
            registry.watches[ObjectIdentifier(watch)] = watch
            if !registry.ticking || watch.tick < registry.tick { registry.tick = watch.tick }
            defer { registry.ticking = true }
            return !registry.ticking
        }
        if startsTicking { schedule() }
    }

    /// Stops watching `watch`.
    func end(_ watch: Watch) {
        _ = registry.withLockedValue { $0.watches.removeValue(forKey: ObjectIdentifier(watch)) }
    }

    private func schedule() {
        let tick = registry.withLockedValue { $0.tick }
        let due = NIODeadline.now() + tick
        loop.scheduleTask(deadline: due) { self.tickNow(due: due, tick: tick) }
    }

    /// One tick: checks, then ticks again while any exchange is watched.
    ///
    /// A tick that runs more than a tick late found its loop held up: what that loop should
    /// have heard meanwhile may still wait in its queue, so it checks nothing. The tick after
    /// it checks however late it runs, because the loop has polled its sockets in between: a
    /// loop that stays late under sustained load delays a read timeout by a tick or two, and
    /// never lets it go unenforced.
    private func tickNow(due: NIODeadline, tick: TimeAmount) {
        let late = NIODeadline.now() - due > tick
        let checks = registry.withLockedValue { registry in
            defer { registry.deferred = late && !registry.deferred }
            return !late || registry.deferred
        }
        if checks { check() }
        let keepsTicking = registry.withLockedValue { registry in
            registry.ticking = !registry.watches.isEmpty
            if !registry.ticking { registry.deferred = false }
            return registry.ticking
        }
        if keepsTicking { schedule() }
    }

    /// Fails, once each, the exchanges silent for the timeout or longer, and stops watching
    /// them. Each tick runs it; tests call it with a clock of their own.
    func check() {
        let now = clock.now()
        let expired: [Watch] = registry.withLockedValue { registry in
            var expired: [Watch] = []
            for (key, watch) in registry.watches {
                if let since = watch.since, now > since, now - since >= watch.timeout {
                    expired.append(watch)
                    registry.watches[key] = nil
                }
            }
            return expired
        }
        for watch in expired {
            watch.failure?()
        }
    }
}

/// One ``ReadWatchdog`` per event loop of a group.
struct ReadWatchdogs: Sendable {
    private let watchdogs: [(loop: any EventLoop, watchdog: ReadWatchdog)]

    init(group: any EventLoopGroup) {
        var watchdogs: [(loop: any EventLoop, watchdog: ReadWatchdog)] = []
        for loop in group.makeIterator() {
            watchdogs.append((loop, ReadWatchdog(loop: loop)))
        }
        self.watchdogs = watchdogs
    }

    /// The watchdog of `loop`, or of the group's first loop if `loop` is not in the group.
    func on(_ loop: any EventLoop) -> ReadWatchdog {
        watchdogs.first { $0.loop === loop }?.watchdog ?? watchdogs[0].watchdog
    }

    /// A clock for one exchange that may stay silent for `timeout`, to start on the loop its
    /// response is delivered on; `nil` when there is no limit.
    func makeWatch(timeout: Duration?) -> ReadWatchdog.Watch? {
        timeout.map { watchdogs[0].watchdog.makeWatch(timeout: $0) }
    }
}
