import CourierDemoServer
import NIOCore
import NIOPosix

/// A listening socket on `127.0.0.1`, port 0, whose connections are tracked so that
/// ``shutdown()`` closes them all.
struct LoopbackListener: Sendable {
    let channel: any Channel
    let registry: ConnectionRegistry
    /// The port the system chose.
    let port: Int

    /// Binds a listener; `handlers` adds each accepted connection's handlers, after the
    /// connection tracking.
    static func bind(
        handlers: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void
    ) async throws -> LoopbackListener {
        let registry = ConnectionRegistry()
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(ConnectionTrackingHandler(registry: registry))
                    try handlers(sync)
                }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw ServerStartError()
        }
        return LoopbackListener(channel: channel, registry: registry, port: port)
    }

    /// Stops listening and closes every open connection.
    func shutdown() async throws {
        try await registry.shutdown(serverChannel: channel)
    }
}
