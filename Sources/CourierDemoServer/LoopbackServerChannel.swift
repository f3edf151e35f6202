import NIOCore
import NIOPosix
import NIOSSL

/// The listening channel of a server started in-process for a test or the demo: bound to
/// 127.0.0.1 on `port` (0 for any), every connection tracked in `registry`, TLS first when
/// `sslContext` is given, then the handlers `configure` adds.
package enum LoopbackServerChannel {
    /// Binds the listener; returns it with the port it got.
    package static func bind(
        port: Int, registry: ConnectionRegistry, sslContext: NIOSSLContext?,
        configure: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void
    ) async throws -> (channel: any Channel, port: Int) {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(ConnectionTrackingHandler(registry: registry))
                    if let sslContext { try sync.addHandler(NIOSSLServerHandler(context: sslContext)) }
                    try configure(sync)
                }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: port).get()
        guard let bound = channel.localAddress?.port else {
            try? await channel.close()
            throw ServerStartError()
        }
        return (channel, bound)
    }
}
