import Atomics
import NIOConcurrencyHelpers
import NIOCore

/// Fails exchanges whose server stays silent for longer than the read timeout.
///
/// AsyncHTTPClient's own read timeout schedules an event-loop timer once the request is sent,
/// then cancels it and schedules a new one for every part of the response: three timers and
/// three cancellations for the smallest response. The watchdog keeps one timer per transport
/// instead, ticking only while exchanges are watched, and each exchange just records, without
/// a lock, when it last heard from the server.
///
/// An exchange's clock starts when its request has been sent in full, restarts with each part
/// of the response, and stops while a streaming reader holds a part it has not taken yet (see
/// ``Watch/pause()``), so that a slow reader is never blamed on the server. A silent exchange fails
/// between one timeout and one tick later; a tick is a tenth of the timeout, between 5 ms and
/// 1 s.
///
/// A watchdog ticks on one event loop and watches the exchanges whose response that loop
/// delivers (see ``ReadWatchdogs``): a loop held up by other work then delays both what it
/// hears and the check, and never makes an exchange look silent.
final class ReadWatchdog: Sendable {
    /// One exchange's clock.
    final class Watch: Sendable {
        /// When the server was last heard from, in `NIODeadline` nanoseconds; 0 while the clock
        /// is stopped.
        fileprivate let since = ManagedAtomic<UInt64>(0)
        /// Whether the request has been sent in full, after which the clock runs.
        private let running = ManagedAtomic<Bool>(false)
        fileprivate let failure = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)
        private let clock: Clock

        fileprivate init(clock: Clock) {
            self.clock = clock
        }

        /// The request has been sent in full: the clock starts.
        func requestSent() {
            running.store(true, ordering: .relaxed)
            since.store(clock.now(), ordering: .relaxed)
        }

        /// The server sent something: restarts the clock if it runs.
        func heard() {
            guard since.load(ordering: .relaxed) != 0 else { return }
            since.store(clock.now(), ordering: .relaxed)
        }

        /// Stops the clock while the reader holds a part: the connection is silent because
        /// nothing more is read, not because the server stalls.
        func pause() {
            since.store(0, ordering: .relaxed)
        }

        /// The reader took the part it held: the clock starts again if the request was sent.
        func resume() {
            guard running.load(ordering: .relaxed) else { return }
            since.store(clock.now(), ordering: .relaxed)
        }
    }

    /// Where the watchdog reads the time, in nanoseconds: `NIODeadline`'s uptime clock, or a
    /// test's own.
    struct Clock: Sendable {
        let read: @Sendable () -> UInt64

        /// The event loops' clock.
        static let uptime = Clock { NIODeadline.now().uptimeNanoseconds }

        /// Never 0, which marks a stopped clock.
        func now() -> UInt64 { max(1, read()) }
    }

    private struct Registry {
        var watches: [ObjectIdentifier: Watch] = [:]
        var ticking = false
    }

    private let timeout: UInt64
    private let tick: TimeAmount
    private let loop: any EventLoop
    private let clock: Clock
    private let registry = NIOLockedValueBox(Registry())

    /// A watchdog for `timeout` whose timer runs on `loop`.
    init(timeout: Duration, loop: any EventLoop, clock: Clock = .uptime) {
        let nanoseconds = max(1, timeout.nanoseconds)
        self.timeout = UInt64(nanoseconds)
        self.tick = .nanoseconds(min(max(nanoseconds / 10, 5_000_000), 1_000_000_000))
        self.loop = loop
        self.clock = clock
    }

    /// A clock for one exchange, to hand to ``start(_:failing:)`` once its task exists.
    func makeWatch() -> Watch {
        Watch(clock: clock)
    }

    /// Watches `watch` until ``end(_:)``; `fail` is called once if it stays silent too long.
    func start(_ watch: Watch, failing fail: @escaping @Sendable () -> Void) {
        watch.failure.withLockedValue { $0 = fail }
        let startsTicking = registry.withLockedValue { registry in
            registry.watches[ObjectIdentifier(watch)] = watch
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
        let due = NIODeadline.now() + tick
        loop.scheduleTask(deadline: due) { self.tickNow(due: due) }
    }

    /// One tick: checks, then ticks again while any exchange is watched. A tick that runs more
    /// than a tick late found its loop held up: what that loop should have heard meanwhile may
    /// still wait in its queue, so nothing is failed until the next tick.
    private func tickNow(due: NIODeadline) {
        if NIODeadline.now() - due <= tick { check() }
        let keepsTicking = registry.withLockedValue { registry in
            registry.ticking = !registry.watches.isEmpty
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
                let since = watch.since.load(ordering: .relaxed)
                if since != 0, now > since, now - since >= timeout {
                    expired.append(watch)
                    registry.watches[key] = nil
                }
            }
            return expired
        }
        for watch in expired {
            watch.failure.withLockedValue { $0 }?()
        }
    }
}

/// One ``ReadWatchdog`` per event loop of a group.
struct ReadWatchdogs: Sendable {
    private let watchdogs: [(loop: any EventLoop, watchdog: ReadWatchdog)]

    init(timeout: Duration, group: any EventLoopGroup) {
        var watchdogs: [(loop: any EventLoop, watchdog: ReadWatchdog)] = []
        for loop in group.makeIterator() {
            watchdogs.append((loop, ReadWatchdog(timeout: timeout, loop: loop)))
        }
        self.watchdogs = watchdogs
    }

    /// The watchdog of `loop`, or of the group's first loop if `loop` is not in the group.
    func on(_ loop: any EventLoop) -> ReadWatchdog {
        watchdogs.first { $0.loop === loop }?.watchdog ?? watchdogs[0].watchdog
    }

    /// A clock for one exchange, to start on the loop its response is delivered on.
    func makeWatch() -> ReadWatchdog.Watch {
        watchdogs[0].watchdog.makeWatch()
    }
}
