import NIOConcurrencyHelpers
import NIOCore

/// The idle connections of ``ChannelTransport``, by origin and TLS settings.
///
/// A connection is only ever handed back out under the key it was opened with, so one
/// verified under some trust roots, pins or client certificate never carries a request made
/// under others.
final class ChannelPool: Sendable {
    /// What a connection was opened for.
    struct Key: Hashable, Sendable {
        var host: String
        var port: Int
        var settings: HostTLSSettings
    }

    private struct Idle {
        var connection: Connection
        var since: ContinuousClock.Instant
    }

    private struct State {
        var idle: [Key: [Idle]] = [:]
        var open: [ObjectIdentifier: Connection] = [:]
        var isShutDown = false
    }

    private let state = NIOLockedValueBox(State())
    private let maximumIdlePerKey: Int
    private let idleTimeout: Duration

    init(maximumIdlePerKey: Int, idleTimeout: Duration) {
        self.maximumIdlePerKey = max(1, maximumIdlePerKey)
        self.idleTimeout = idleTimeout
    }

    /// An idle connection for `key` that is still open, or `nil`. Connections that closed or
    /// stayed idle too long are dropped on the way.
    func take(_ key: Key) throws(CourierError) -> (Connection)? {
        let now = ContinuousClock.now
        let (found, stale) = state.withLockedValue { state -> ((Connection)?, [Connection]) in
            var stale: [Connection] = []
            while let entry = state.idle[key]?.popLast() {
                if entry.connection.channel.isActive, now - entry.since < idleTimeout { return (entry.connection, stale) }
                stale.append(entry.connection)
            }
            return (nil, stale)
        }
        for connection in stale { connection.channel.close(promise: nil) }
        if found == nil, state.withLockedValue({ $0.isShutDown }) {
            throw CourierError(.clientShutdown, "The client was shut down; create a new one.")
        }
        return found
    }

    /// Tracks a newly opened connection until it closes; closes it at once after shutdown.
    func opened(_ connection: Connection) throws(CourierError) {
        let channel = connection.channel
        let id = ObjectIdentifier(channel)
        let accepted = state.withLockedValue { state in
            guard !state.isShutDown else { return false }
            state.open[id] = connection
            return true
        }
        guard accepted else {
            channel.close(promise: nil)
            throw CourierError(.clientShutdown, "The client was shut down; create a new one.")
        }
        channel.closeFuture.whenComplete { [state] _ in
            state.withLockedValue { state in
                state.open[id] = nil
                for key in state.idle.keys { state.idle[key]?.removeAll { $0.connection.channel === channel } }
            }
        }
    }

    /// Returns a connection whose exchange ended; it is kept when `reusable` and there is room.
    func release(_ connection: Connection, key: Key, reusable: Bool) {
        let kept =
            reusable && connection.channel.isActive
            && state.withLockedValue { state in
                guard !state.isShutDown, state.idle[key, default: []].count < maximumIdlePerKey else { return false }
                state.idle[key, default: []].append(Idle(connection: connection, since: .now))
                return true
            }
        if !kept { connection.channel.close(promise: nil) }
    }

    /// Closes every connection, idle or busy, and refuses new ones.
    func shutdown() async {
        let channels = state.withLockedValue { state in
            state.isShutDown = true
            state.idle = [:]
            return Array(state.open.values)
        }
        for connection in channels {
            try? await connection.channel.close()
        }
    }
}
