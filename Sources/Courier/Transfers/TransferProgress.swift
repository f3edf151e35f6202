/// How far a transfer has come: the bytes done and, when known, the bytes in all.
///
/// Uploads report it through ``CourierRequest/uploadProgress`` and ``RequestHandle/uploadProgress``.
/// Values arrive throttled, at most about every 100 ms or every 1 % of the total, and the
/// last value of a transfer is always delivered.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// The bytes transferred so far.
    public var completedBytes: Int64
    /// The bytes in all, or `nil` when the length is not known in advance.
    public var totalBytes: Int64?

    /// Creates a value, for comparisons in tests.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// The share done, from 0 to 1; `nil` when the total is not known. An empty transfer is
    /// complete (1).
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        guard totalBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }

    /// Whether every byte of a transfer of known length is done.
    public var isComplete: Bool {
        totalBytes.map { completedBytes >= $0 } ?? false
    }

    public var description: String {
        totalBytes.map { "\(completedBytes) of \($0) bytes" } ?? "\(completedBytes) bytes"
    }
}
