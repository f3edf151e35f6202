/// What happened to a connection: the reason carried by a ``CourierError`` of kind
/// ``CourierError/Kind/connectionFailed`` in ``CourierError/connectionFailure``, when the
/// transport could tell.
///
/// A struct with static members rather than an enum, so that reasons can be added without
/// breaking a `switch`. A custom transport that cannot tell leaves the reason `nil`.
public struct ConnectionFailure: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// The host name did not resolve to any address (no such name, or no DNS answer).
    public static let hostNotFound = ConnectionFailure("hostNotFound")
    /// The host refused the connection: nothing listens on that port.
    public static let refused = ConnectionFailure("refused")
    /// The host or its network could not be reached.
    public static let unreachable = ConnectionFailure("unreachable")
    /// The connection was reset (`ECONNRESET`) before the response ended.
    public static let reset = ConnectionFailure("reset")
    /// The server closed the connection before any of the response.
    public static let emptyReply = ConnectionFailure("emptyReply")
    /// The server closed the connection after the response began, before its body ended.
    public static let cutShort = ConnectionFailure("cutShort")

    /// The reason's name, e.g. `refused`.
    public var description: String { name }

    /// Whether the connection was never opened, so that no byte of a request was sent.
    public var isBeforeConnecting: Bool {
        self == .hostNotFound || self == .refused || self == .unreachable
    }
}
