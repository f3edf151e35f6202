import Courier
import ServiceLifecycle

/// A ``Courier/CourierClient`` as a service of a swift-service-lifecycle `ServiceGroup`, shut down
/// with the rest of the service on SIGTERM.
///
/// The service runs until the group shuts down gracefully. It then lets the requests still in
/// flight, or waiting for a connection slot, finish, for at most ``drainTimeout``, and shuts
/// the client down; requests sent after that fail with
/// ``Courier/CourierError/Kind/clientShutdown``. Cancelled, it shuts the client down at once.
///
/// ```swift
/// let client = CourierClient(configuration: configuration)
/// let group = ServiceGroup(
///     services: [ClientService(client: client), server],
///     gracefulShutdownSignals: [.sigterm], logger: logger
/// )
/// try await group.run()
/// ```
///
/// A group shuts its services down in the reverse of their order, so list the client before
/// the services that send requests through it: they stop first, and the client drains last.
public struct ClientService: Service {
    /// The client.
    public let client: CourierClient
    /// How long a graceful shutdown waits for requests in flight before the client closes.
    public var drainTimeout: Duration

    /// Creates the service of `client`, which waits at most `drainTimeout` for requests in
    /// flight when the group shuts down.
    public init(client: CourierClient, drainTimeout: Duration = .seconds(30)) {
        self.client = client
        self.drainTimeout = drainTimeout
    }

    /// Waits for the group's graceful shutdown, drains, and shuts the client down.
    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled: no draining.
            try await client.shutdown()
            return
        }
        let deadline = ContinuousClock.now + drainTimeout
        while client.activity.isActive, ContinuousClock.now < deadline {
            do {
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                break
            }
        }
        try await client.shutdown()
    }
}
