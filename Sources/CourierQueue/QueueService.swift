import ServiceLifecycle

/// A ``DurableQueue`` delivering as a service of a swift-service-lifecycle `ServiceGroup`,
/// closed with the rest of the service on SIGTERM without losing a record.
///
/// The queue delivers from the moment it is opened (``QueueConfiguration/deliversOnOpen``);
/// the service keeps it open until the group shuts down, then closes it. Records that wait stay
/// in the database, and records being sent stay there too and are sent again, with their key,
/// by the next queue opened on it: the server applies each at most once.
///
/// ```swift
/// let queue = try await client.openQueue(QueueConfiguration(path: outboxPath))
/// let group = ServiceGroup(
///     services: [ClientService(client: client), QueueService(queue: queue), server],
///     gracefulShutdownSignals: [.sigterm], logger: logger
/// )
/// try await group.run()
/// ```
public struct QueueService: Service {
    /// The queue.
    public let queue: DurableQueue

    /// Creates the service of `queue`.
    public init(queue: DurableQueue) {
        self.queue = queue
    }

    /// Waits for the group's graceful shutdown, or for cancellation, and closes the queue.
    public func run() async throws {
        try? await gracefulShutdown()
        await queue.close()
    }
}
