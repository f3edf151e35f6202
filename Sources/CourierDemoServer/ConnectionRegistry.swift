import NIOConcurrencyHelpers
import NIOCore

/// Tracks the child channels of a listening server so that they can be counted and closed on shutdown.
///
/// Shared by ``TestServer`` and ``FaultServer``. All state is guarded by a lock; the type is safe to use
/// from any thread.
package final class ConnectionRegistry: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var accepted = 0
        var shutdownFuture: EventLoopFuture<Void>?
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Number of connections currently open.
    package var openConnections: Int {
        self.state.withLockedValue { $0.channels.count }
    }

    /// Number of connections accepted since the server started.
    package var acceptedConnections: Int {
        self.state.withLockedValue { $0.accepted }
    }

    /// Registers a newly active connection.
    ///
    /// - Returns: `false` if the server is already shutting down; the caller must then close the channel.
    package func connectionOpened(_ channel: any Channel) -> Bool {
        self.state.withLockedValue { state in
            guard state.shutdownFuture == nil else { return false }
            state.accepted += 1
            state.channels[ObjectIdentifier(channel)] = channel
            return true
        }
    }

    /// Unregisters a connection that became inactive.
    package func connectionClosed(_ channel: any Channel) {
        _ = self.state.withLockedValue { state in
            state.channels.removeValue(forKey: ObjectIdentifier(channel))
        }
    }

    /// Closes `serverChannel` and every registered connection, then waits until all of them are closed.
    ///
    /// Idempotent: later (or concurrent) calls wait for the first shutdown to complete.
    package func shutdown(serverChannel: any Channel) async throws {
        let (future, children): (EventLoopFuture<Void>, [any Channel]?) = self.state.withLockedValue { state in
            if let existing = state.shutdownFuture {
                return (existing, nil)
            }
            let children = Array(state.channels.values)
            let closeFutures = [serverChannel.closeFuture] + children.map(\.closeFuture)
            let all = EventLoopFuture.andAllComplete(closeFutures, on: serverChannel.eventLoop)
            state.shutdownFuture = all
            return (all, children)
        }
        if let children {
            serverChannel.close(promise: nil)
            for child in children {
                child.close(promise: nil)
            }
        }
        try await future.get()
    }
}

/// A channel handler that reports channel activity to a ``ConnectionRegistry``.
package final class ConnectionTrackingHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = NIOAny

    private let registry: ConnectionRegistry
    private var registered = false

    package init(registry: ConnectionRegistry) {
        self.registry = registry
    }

    package func channelActive(context: ChannelHandlerContext) {
        if self.registry.connectionOpened(context.channel) {
            self.registered = true
            context.fireChannelActive()
        } else {
            context.close(promise: nil)
        }
    }

    package func channelInactive(context: ChannelHandlerContext) {
        if self.registered {
            self.registered = false
            self.registry.connectionClosed(context.channel)
        }
        context.fireChannelInactive()
    }
}
