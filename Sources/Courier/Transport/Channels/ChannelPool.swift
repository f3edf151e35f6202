import NIOConcurrencyHelpers
import NIOCore

/// The connections of ``ChannelTransport``, by origin and TLS settings: idle HTTP/1.1
/// connections, and the HTTP/2 connection each key's new streams go to.
///
/// A connection is only ever handed back out under the key it was opened with, so one
/// verified under some trust roots, pins or client certificate never carries a request made
/// under others.
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

    private struct State {
        var idle: [Key: [Idle]] = [:]
        var open: [ObjectIdentifier: Connection] = [:]
        var multiplexed: [ObjectIdentifier: Multiplexed] = [:]
        /// The HTTP/2 connection of each key that new streams go to.
        var current: [Key: ObjectIdentifier] = [:]
        var isShutDown = false
    }

    private let state = NIOLockedValueBox(State())
    /// The most idle HTTP/1.1 connections kept for one key on one event loop.
    private let maximumIdlePerKey: Int
    private let idleTimeout: Duration

    init(maximumIdlePerKey: Int, idleTimeout: Duration) {
        self.maximumIdlePerKey = max(1, maximumIdlePerKey)
        self.idleTimeout = idleTimeout
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
        if found == nil, state.withLockedValue({ $0.isShutDown }) {
            throw CourierError(.clientShutdown, "The client was shut down; create a new one.")
        }
        return found
    }

    /// Tracks a newly opened connection for `key` until it closes, with one stream counted
    /// when it speaks HTTP/2; closes it at once after shutdown.
    func opened(_ connection: Connection, key: Key) throws(CourierError) {
        let channel = connection.channel
        let id = ObjectIdentifier(channel)
        let accepted = state.withLockedValue { state in
            guard !state.isShutDown else { return false }
            state.open[id] = connection
            if connection.streams != nil {
                state.multiplexed[id] = Multiplexed(connection: connection, key: key, streams: 1, since: .now)
                if state.current[key] == nil { state.current[key] = id }
            }
            return true
        }
        guard accepted else {
            channel.close(promise: nil)
            throw CourierError(.clientShutdown, "The client was shut down; create a new one.")
        }
        channel.closeFuture.whenComplete { [state] _ in
            state.withLockedValue { state in
                state.open[id] = nil
                if let entry = state.multiplexed.removeValue(forKey: id), state.current[entry.key] == id {
                    state.current[entry.key] = nil
                }
                for key in state.idle.keys { state.idle[key]?.removeAll { $0.connection.channel === channel } }
            }
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
            if unused { connection.channel.close(promise: nil) }
            return
        }
        // Up to the limit per loop: tasks on a loop keep to connections of their own loop
        // (see ``take(_:on:)``), which a limit for all loops together would close and open
        // again, turn by turn.
        let loop = connection.channel.eventLoop
        let kept =
            reusable && connection.channel.isActive
            && state.withLockedValue { state in
                guard !state.isShutDown else { return false }
                var sameLoop = 0
                for entry in state.idle[key, default: []] where entry.connection.channel.eventLoop === loop { sameLoop += 1 }
                guard sameLoop < maximumIdlePerKey else { return false }
                state.idle[key, default: []].append(Idle(connection: connection, since: .now))
                return true
            }
        if !kept { connection.channel.close(promise: nil) }
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
        let channels = state.withLockedValue { state in
            state.isShutDown = true
            state.idle = [:]
            state.current = [:]
            return Array(state.open.values)
        }
        for connection in channels {
            try? await connection.channel.close()
        }
    }
}
