/// A set of requests sent together, at most ``maximumConcurrency`` at a time
/// (YTKBatchRequest and AFNetworking's batches).
///
/// Requests of different response types go in one batch; each ``add(_:)-(CourierRequest<Value>)`` returns an entry
/// that reads its typed result back:
///
/// ```swift
/// var batch = Batch(mode: .failFast, maximumConcurrency: 4)
/// let user = batch.add(CourierRequest<User>(path: "/users/1"))
/// let avatar = batch.add(CourierRequest<Data>(path: "/users/1/avatar"))
/// let results = try await client.run(batch)
/// let name = try results.value(for: user).name
/// let bytes = try results.value(for: avatar)
/// ```
public struct Batch: Sendable {
    /// What a failure does to the rest of a batch.
    public enum Mode: Sendable, Hashable {
        /// The first failure cancels every request still waiting or running, and the batch
        /// throws ``BatchError`` naming the request that failed.
        case failFast
        /// Every request runs to its end whatever the others do; each result is reported in
        /// ``BatchResults`` and the batch itself does not throw.
        case settle
    }

    /// What a failure does to the rest of the batch.
    public var mode: Mode
    /// The most requests of this batch in flight at once; the client's own limits apply too.
    public var maximumConcurrency: Int
    /// Runs of consecutive requests, in order.
    private(set) var segments: [Segment] = []
    /// The number of requests in the batch.
    public private(set) var count = 0

    /// Consecutive requests made by one operation: `request` makes the request at an offset
    /// within the run, when its turn comes, and returns what sends it and decodes its value.
    struct Segment: Sendable {
        let count: Int
        let request: @Sendable (Int) -> @Sendable (CourierClient) async throws -> any Sendable
    }

    /// Creates an empty batch.
    ///
    /// - Parameters:
    ///   - mode: What a failure does to the rest of the batch; fail-fast by default.
    ///   - maximumConcurrency: The most requests in flight at once; values below 1 count as 1.
    public init(mode: Mode = .failFast, maximumConcurrency: Int = 6) {
        self.mode = mode
        self.maximumConcurrency = maximumConcurrency
    }

    /// Adds `request` and returns the entry that reads its result.
    @discardableResult
    public mutating func add<Value>(_ request: CourierRequest<Value>) -> BatchEntry<Value> {
        segments.append(Segment(count: 1) { _ in { client in try await client.send(request) } })
        count += 1
        return BatchEntry(index: count - 1)
    }

    /// Adds `count` requests, each made by `makeRequest` from its position among them (0 to
    /// `count - 1`) only when its turn to start comes, and returns their entries in order.
    ///
    /// A batch of many thousands of requests built this way holds no more requests than it has
    /// in flight:
    ///
    /// ```swift
    /// var batch = Batch(mode: .settle, maximumConcurrency: 16)
    /// let pages = batch.add(count: 20_000) { CourierRequest<Data>(path: "/pages/\($0)") }
    /// let results = try await client.run(batch)
    /// let first = try results.value(for: pages[0])
    /// ```
    @discardableResult
    public mutating func add<Value>(
        count: Int, _ makeRequest: @escaping @Sendable (Int) -> CourierRequest<Value>
    ) -> [BatchEntry<Value>] {
        guard count > 0 else { return [] }
        let start = self.count
        segments.append(
            Segment(count: count) { offset in
                let request = makeRequest(offset)
                return { client in try await client.send(request) }
            })
        self.count += count
        return (start..<start + count).map { BatchEntry(index: $0) }
    }

    /// Adds the request an endpoint describes and returns the entry that reads its result.
    @discardableResult
    public mutating func add<E: CourierEndpoint>(_ endpoint: E) -> BatchEntry<E.Value> {
        add(endpoint.makeRequest())
    }
}

/// A request's place in a ``Batch``, typed by the value it decodes to.
public struct BatchEntry<Value: Sendable>: Sendable, Hashable {
    /// The request's position in the batch, from 0, in the order it was added.
    public let index: Int
}
