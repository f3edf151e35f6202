import NIOPosix

extension CourierClient {
    /// Returns a task executor that runs tasks on one of the event loops of Courier's default
    /// transport, a different loop at each call.
    ///
    /// A task that sends many requests one after another, such as a worker draining a list,
    /// spends less time handing itself between threads when it runs there: each response
    /// resumes it on the thread that received it, and its next request starts on that thread.
    /// Its requests go over connections of its own loop, kept apart from those of callers
    /// elsewhere and limited by ``Limits/maximumConnectionsPerHost`` on their
    /// own. Keep work that blocks or computes for long off these executors; they also carry
    /// every connection's I/O.
    ///
    /// ```swift
    /// let executor = client.makeTaskExecutor()
    /// try await withTaskExecutorPreference(executor) {
    ///     for id in ids { _ = try await client.send(CourierRequest<Data>(path: "/items/\(id)")) }
    /// }
    /// ```
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    public func makeTaskExecutor() -> any TaskExecutor {
        EventLoopTaskExecutor(loop: MultiThreadedEventLoopGroup.singleton.next())
    }
}
