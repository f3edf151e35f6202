/// The outcome of every request of a ``Batch``, in the order they were added.
public struct BatchResults: Sendable {
    let outcomes: [Result<any Sendable, any Error>]

    /// The number of requests in the batch.
    public var count: Int { outcomes.count }

    /// The result of the request `entry` stands for: its value, or the error it failed with.
    /// Requests that were never sent, or were stopped by a fail-fast batch, hold a
    /// ``CourierError`` of kind ``CourierError/Kind/cancelled``.
    public subscript<Value>(entry: BatchEntry<Value>) -> Result<Value, any Error> {
        outcomes[entry.index].map { $0 as! Value }
    }

    /// The value of the request `entry` stands for, or the error it failed with.
    public func value<Value>(for entry: BatchEntry<Value>) throws -> Value {
        try self[entry].get()
    }

    /// The result of the request at `index`, with its value untyped; for batches built in a
    /// loop, where the entries are positions.
    public func result(at index: Int) -> Result<any Sendable, any Error> {
        outcomes[index]
    }

    /// The positions of the requests that failed, in order.
    public var failedIndices: [Int] {
        outcomes.indices.filter { index in
            if case .failure = outcomes[index] { return true }
            return false
        }
    }
}

/// How far a batch has come: "n of m done".
public struct BatchProgress: Sendable, Hashable {
    /// Requests finished so far, successfully or not.
    public var completed: Int
    /// Requests that finished with a failure so far.
    public var failed: Int
    /// Requests in the batch.
    public var total: Int

    /// Creates a value, for comparisons in tests.
    public init(completed: Int, failed: Int, total: Int) {
        self.completed = completed
        self.failed = failed
        self.total = total
    }

    /// The finished share, from 0 to 1; 1 for an empty batch.
    public var fractionCompleted: Double {
        total == 0 ? 1 : Double(completed) / Double(total)
    }
}

/// Thrown by a fail-fast ``Batch`` whose request failed: which request, why, and what became
/// of the others.
public struct BatchError: Error, Sendable, CustomStringConvertible {
    /// The position of the request that failed first.
    public let index: Int
    /// The error that request failed with.
    public let error: any Error
    /// Every request's result: the values that arrived before the failure, the failure, and
    /// cancellations for the rest.
    public let results: BatchResults

    /// Says which request failed and why, safe to print (see ``PrintableText``).
    public var description: String {
        PrintableText.escaping("Request \(index) of the batch failed, so the batch stopped and cancelled the rest: \(error)")
    }
}
