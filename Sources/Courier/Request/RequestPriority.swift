/// How soon a request should start when requests wait for a connection.
public enum RequestPriority: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Background work.
    case low = -1
    /// The default.
    case `default` = 0
    /// Work a person is waiting for.
    case high = 1

    public static func < (lhs: RequestPriority, rhs: RequestPriority) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
