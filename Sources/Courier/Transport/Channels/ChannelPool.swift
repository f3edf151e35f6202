import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// The connections of ``ChannelTransport``, by origin and TLS settings: idle HTTP/1.1
/// connections, and the HTTP/2 connection each key's new streams go to.
///
/// A connection is only ever handed back out under the key it was opened with, so one
/// verified under some trust roots, pins or client certificate never carries a request made
/// under others.
///
/// It opens at most `maximumConnectionsPerHost` connections of a key for callers off the
/// event loops, and as many again for the tasks of each loop (see ``Opener``), as
/// AsyncHTTPClient's road does; a request that finds no idle connection and no room waits, in
/// order of arrival, for a connection given back or for room left by one that closed, up to
/// its connect timeout. Connections opened for an upgrade are never kept and not counted.
final class ChannelPool: Sendable {
    /// What a connection was opened for.
    struct Key: Hashable, Sendable {
        var host: String
        var port: Int
        /// `nil` for a plain http origin.
        var settings: HostTLSSettings?
        /// The proxy whose tunnel the connection goes through, if any.
        var proxy: Proxy?
        /// The TLS settings of the proxy's host, for a proxy spoken to over TLS.
        var proxySettings: HostTLSSettings? = nil
        /// Whether the connection is opened for an upgrade: HTTP/1.1 only, and never reused.
        var upgrades = false
    }

    private struct Idle {
        var connection: Connection
        var since: ClockReading
    }

    /// An HTTP/2 connection, its streams in flight, and when the last one ended.
    private struct Multiplexed {
        var connection: Connection
        var key: Key
        var streams: Int
        var since: ClockReading
    }

    /// Whose budget of connections to open a connection counts against: callers off the
    /// loops share one per key, and the tasks of each loop have one per key.
    fileprivate enum Opener: Hashable {
        case pool
        case loop(ObjectIdentifier)

        init(_ loop: (any EventLoop)?) {
            self = loop.map { .loop(ObjectIdentifier($0)) } ?? .pool
        }
    }

    fileprivate struct Budget: Hashable {
        var key: Key
        var opener: Opener
    }

    /// What a lease gets: an idle connection, or room to open one (counted against its
    /// budget until ``opened(_:key:room:)`` tracks it, or ``failedToOpen(_:)`` gives the room back).
    enum Lease {
        case idle(Connection)
        case room(Room)
    }

    /// Room to open one connection; an upgrade's is counted against no budget.
    struct Room: Sendable {
        fileprivate let budget: Budget?
    }

    /// A lease waiting for a connection or for room.
    private struct Waiter {
        var id: UInt64
        var loop: (any EventLoop)?
        var continuation: UnsafeContinuation<Lease, any Error>
    }

    private struct State {
        var idle: [Key: [Idle]] = [:]
        var open: [ObjectIdentifier: Connection] = [:]
        /// Connections open or being opened, by budget.
        var counted: [Budget: Int] = [:]
        /// The budget of each counted connection that is open.
        var budgets: [ObjectIdentifier: Budget] = [:]
        /// The leases waiting, by key, in order of arrival.
        var waiters: [Key: [Waiter]] = [:]
        var nextWaiter: UInt64 = 0
        var multiplexed: [ObjectIdentifier: Multiplexed] = [:]
        /// The HTTP/2 connection of each key that new streams go to.
        var current: [Key: ObjectIdentifier] = [:]
        var isShutDown = false

        /// Counts one more connection against `budget` when it has room and no lease waits
        /// for it (those came first).
        mutating func reserve(_ budget: Budget, limit: Int) -> Bool {
            guard counted[budget, default: 0] < limit, waiters[budget.key]?.contains(where: { Opener($0.loop) == budget.opener }) != true
            else { return false }
            counted[budget, default: 0] += 1
            return true
        }

        /// An open idle HTTP/1.1 connection of `key` (of `loop`, given one), the last put back;
        /// it was put back since the lease looked.
        mutating func takeJustReleased(_ key: Key, on loop: (any EventLoop)?) -> Connection? {
            guard var entries = idle[key],
                let index = entries.lastIndex(where: { $0.connection.channel.isActive && (loop == nil || $0.connection.channel.eventLoop === loop) })
            else { return nil }
            let entry = entries.remove(at: index)
            idle[key] = entries.isEmpty ? nil : entries
            return entry.connection
        }

        /// When `budget` has room and a lease waits for it, counts one more connection
        /// against it and returns that lease, taken out of line.
        mutating func grantRoom(in budget: Budget, limit: Int) -> UnsafeContinuation<Lease, any Error>? {
            guard counted[budget, default: 0] < limit,
                let index = waiters[budget.key]?.firstIndex(where: { Opener($0.loop) == budget.opener })
            else { return nil }
            let waiter = waiters[budget.key]?.remove(at: index)
            counted[budget, default: 0] += 1
            return waiter?.continuation
        }

        /// Takes out of line the first lease waiting for `key` that can use a connection of
        /// `loop`.
        mutating func waiter(for key: Key, on loop: any EventLoop) -> Waiter? {
            guard let index = waiters[key]?.firstIndex(where: { $0.loop == nil || $0.loop === loop }) else { return nil }
            return waiters[key]?.remove(at: index)
        }
    }

    private let state = NIOLockedValueBox(State())
    /// The most connections of one key opened against one budget (see ``Opener``), and the
    /// most idle HTTP/1.1 connections kept for one key on one event loop.
    private let maximumPerKey: Int
    private let idleTimeout: Duration

    init(maximumPerKey: Int, idleTimeout: Duration) {
        self.maximumPerKey = max(1, maximumPerKey)
        self.idleTimeout = idleTimeout
    }

    /// A connection for `key` (see ``take(_:on:)``), or else room to open one; without either,
    /// waits up to `timeout` for one, in order of arrival. Given a `loop`, only a connection of
    /// that loop, and room in that loop's budget.
    ///
    /// - Throws: ``CourierError/Kind/timeout`` when nothing came within `timeout`;
    ///   `CancellationError` when the task was cancelled; ``CourierError/Kind/clientShutdown``.
    nonisolated(nonsending) func lease(_ key: Key, on loop: (any EventLoop)?, waitingAtMost timeout: Duration, url: URL) async throws -> Lease {
        // A connection opened for an upgrade is never kept, and not counted.
        if key.upgrades { return .room(Room(budget: nil)) }
        if let idle = try take(key, on: loop) { return .idle(idle) }
        let budget = Budget(key: key, opener: Opener(loop))
        let limit = maximumPerKey
        if state.withLockedValue({ $0.reserve(budget, limit: limit) }) { return .room(Room(budget: budget)) }
        let id = state.withLockedValue { state in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        // Started once the lease is in line, so that it cannot expire before.
        let expiry = NIOLockedValueBox<Task<Void, Never>?>(nil)
        defer { expiry.withLockedValue { $0?.cancel() } }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                let outcome = state.withLockedValue { state -> Result<Lease, any Error>? in
                    if state.isShutDown { return .failure(ChannelPool.shutDown) }
                    // A cancellation that came before the lease was in line.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    // A connection or room may have come meanwhile.
                    if let connection = state.takeJustReleased(key, on: loop) { return .success(.idle(connection)) }
                    if state.reserve(budget, limit: limit) { return .success(.room(Room(budget: budget))) }
                    state.waiters[key, default: []].append(Waiter(id: id, loop: loop, continuation: continuation))
                    return nil
                }
                if let outcome { return continuation.resume(with: outcome) }
                let timer = Task { [weak self] in
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    self?.withdraw(id, key: key, with: ChannelPool.noConnection(for: key, within: timeout, url: url))
                }
                expiry.withLockedValue { $0 = timer }
            }
        } onCancel: {
            withdraw(id, key: key, with: CancellationError())
        }
    }

    /// Takes the waiter `id` out of line, if still in it, failing its lease with `error`.
    private func withdraw(_ id: UInt64, key: Key, with error: any Error) {
        let waiter = state.withLockedValue { state -> Waiter? in
            guard let index = state.waiters[key]?.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters[key]?.remove(at: index)
        }
        waiter?.continuation.resume(throwing: error)
    }

    /// The connection a lease had room for could not be opened: the room goes to the next
    /// lease waiting for it.
    func failedToOpen(_ room: Room) {
        guard let budget = room.budget else { return }
        let woken = state.withLockedValue { state in
            state.counted[budget, default: 1] -= 1
            return state.grantRoom(in: budget, limit: maximumPerKey)
        }
        woken?.resume(returning: .room(room))
    }

    /// No connection of `key` came within `timeout`.
    private static func noConnection(for key: Key, within timeout: Duration, url: URL) -> CourierError {
        var error = CourierError(
            .timeout,
            "No connection to \(key.host):\(key.port) became free within the connect timeout of \(timeout); keep Limits.maximumConcurrentRequestsPerHost at or below maximumConnectionsPerHost, or raise the connect timeout.",
            url: url
        )
        error.requestMayHaveBeenSent = false
        return error
    }

    private static var shutDown: CourierError {
        CourierError(.clientShutdown, "The client was shut down; create a new one.")
    }

    /// A connection for `key` that is still open, or `nil`: the key's HTTP/2 connection (one
    /// more stream counted on it), else an idle HTTP/1.1 one, the last put back; given a
    /// `loop`, only one of that loop (a caller on the loop keeps to its own connections).
    /// Connections that closed or stayed idle too long are dropped on the way.
    func take(_ key: Key, on loop: (any EventLoop)? = nil) throws(CourierError) -> (Connection)? {
        let now = ClockReading.now
        let idleTimeout = self.idleTimeout
        let (found, stale) = state.withLockedValue { state -> ((Connection)?, [Connection]) in
            var stale: [Connection] = []
            if let id = state.current[key], var entry = state.multiplexed[id] {
                if entry.connection.channel.isActive, entry.streams > 0 || now - entry.since < idleTimeout {
                    entry.streams += 1
                    state.multiplexed[id] = entry
                    return (entry.connection, stale)
                }
                state.current[key] = nil
                if entry.streams == 0 { stale.append(entry.connection) }
            }
            // Taken out and put back, so that the list is changed in place, not copied.
            guard var idle = state.idle.removeValue(forKey: key) else { return (nil, stale) }
            defer { if !idle.isEmpty { state.idle[key] = idle } }
            var index = idle.endIndex
            while index > idle.startIndex {
                index -= 1
                let entry = idle[index]
                guard entry.connection.channel.isActive, now - entry.since < idleTimeout else {
                    stale.append(entry.connection)
                    idle.remove(at: index)
                    continue
                }
                if let loop, entry.connection.channel.eventLoop !== loop { continue }
                idle.remove(at: index)
                return (entry.connection, stale)
            }
            return (nil, stale)
        }
        for connection in stale { connection.channel.close(promise: nil) }
        if found == nil, state.withLockedValue({ $0.isShutDown }) { throw ChannelPool.shutDown }
        return found
    }

    /// Tracks a newly opened connection for `key` until it closes, with one stream counted
    /// when it speaks HTTP/2; closes it at once after shutdown.
    func opened(_ connection: Connection, key: Key, room: Room) throws(CourierError) {
        let channel = connection.channel
        let id = ObjectIdentifier(channel)
        let limit = maximumPerKey
        let accepted = state.withLockedValue { state in
            guard !state.isShutDown else { return false }
            state.open[id] = connection
            state.budgets[id] = room.budget
            if connection.streams != nil {
                state.multiplexed[id] = Multiplexed(connection: connection, key: key, streams: 1, since: .now)
                if state.current[key] == nil { state.current[key] = id }
            }
            return true
        }
        // Every lease waiting for the key gets a stream of a new HTTP/2 connection.
        if accepted, connection.streams != nil { serveWaiters(of: key, on: connection) }
        guard accepted else {
            failedToOpen(room)
            channel.close(promise: nil)
            throw ChannelPool.shutDown
        }
        channel.closeFuture.whenComplete { [state] _ in
            let woken = state.withLockedValue { state -> (UnsafeContinuation<Lease, any Error>, Budget)? in
                state.open[id] = nil
                if let entry = state.multiplexed.removeValue(forKey: id), state.current[entry.key] == id {
                    state.current[entry.key] = nil
                }
                for key in state.idle.keys { state.idle[key]?.removeAll { $0.connection.channel === channel } }
                // Its room goes to the next lease waiting for it.
                guard let budget = state.budgets.removeValue(forKey: id) else { return nil }
                state.counted[budget, default: 1] -= 1
                return state.grantRoom(in: budget, limit: limit).map { ($0, budget) }
            }
            if let (waiter, budget) = woken { waiter.resume(returning: .room(Room(budget: budget))) }
        }
    }

    /// Returns a connection whose exchange ended. An HTTP/1.1 connection is kept when
    /// `reusable` and there is room; an HTTP/2 one has a stream fewer, and is closed once it
    /// has none and new streams go elsewhere.
    func release(_ connection: Connection, key: Key, reusable: Bool) {
        if connection.streams != nil {
            let id = ObjectIdentifier(connection.channel)
            let unused = state.withLockedValue { state -> Bool in
                guard var entry = state.multiplexed[id] else { return false }
                entry.streams -= 1
                entry.since = .now
                state.multiplexed[id] = entry
                return entry.streams == 0 && (state.isShutDown || state.current[key] != id)
            }
            if unused { connection.channel.close(promise: nil) } else { serveWaiters(of: key, on: connection) }
            return
        }
        // Up to the limit per loop: tasks on a loop keep to connections of their own loop
        // (see ``take(_:on:)``), which a limit for all loops together would close and open
        // again, turn by turn.
        let loop = connection.channel.eventLoop
        guard reusable, connection.channel.isActive else { return connection.channel.close(promise: nil) }
        enum Outcome {
            case kept
            case handed(Waiter)
            case closed
        }
        let outcome = state.withLockedValue { state -> Outcome in
            guard !state.isShutDown else { return .closed }
            // A lease waiting for a connection of this loop takes it at once.
            if let waiter = state.waiter(for: key, on: loop) { return .handed(waiter) }
            var sameLoop = 0
            for entry in state.idle[key, default: []] where entry.connection.channel.eventLoop === loop { sameLoop += 1 }
            guard sameLoop < maximumPerKey else { return .closed }
            state.idle[key, default: []].append(Idle(connection: connection, since: .now))
            return .kept
        }
        switch outcome {
        case .kept: break
        case .handed(let waiter): waiter.continuation.resume(returning: .idle(connection))
        case .closed: connection.channel.close(promise: nil)
        }
    }

    /// Hands the HTTP/2 `connection` of `key`, when new streams still go to it, to every
    /// lease waiting for the key, one more stream counted for each.
    private func serveWaiters(of key: Key, on connection: Connection) {
        let id = ObjectIdentifier(connection.channel)
        let waiters = state.withLockedValue { state -> [Waiter] in
            guard state.current[key] == id, var entry = state.multiplexed[id], let waiting = state.waiters.removeValue(forKey: key) else { return [] }
            entry.streams += waiting.count
            state.multiplexed[id] = entry
            return waiting
        }
        for waiter in waiters { waiter.continuation.resume(returning: .idle(connection)) }
    }

    /// Sends no new stream to the HTTP/2 `connection` of `key` any more (it refused one: the
    /// server is going away); its streams in flight finish, then it closes.
    func retire(_ connection: Connection, key: Key) {
        let id = ObjectIdentifier(connection.channel)
        state.withLockedValue { state in
            if state.current[key] == id { state.current[key] = nil }
        }
    }

    /// Closes every connection, idle or busy, and refuses new ones.
    func shutdown() async {
        let (channels, waiters) = state.withLockedValue { state in
            state.isShutDown = true
            state.idle = [:]
            state.current = [:]
            defer { state.waiters = [:] }
            return (Array(state.open.values), state.waiters.values.joined())
        }
        for waiter in waiters { waiter.continuation.resume(throwing: ChannelPool.shutDown) }
        for connection in channels {
            try? await connection.channel.close()
        }
    }
}
