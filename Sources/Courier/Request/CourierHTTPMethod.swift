/// An HTTP request method, such as `GET` or `POST`.
///
/// Any token is accepted (`CourierHTTPMethod("PROPFIND")`); a method holding characters that are not
/// allowed in an HTTP token is refused with ``CourierError/Kind/invalidMethod`` before sending.
public struct CourierHTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method as sent on the wire.
    public let rawValue: String

    /// Creates a method from its name; names are case-sensitive (`get` is not `GET`).
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a method from its name.
    public init(_ name: String) { self.rawValue = name }
    /// Creates a method from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// `GET`
    public static let get: CourierHTTPMethod = "GET"
    /// `HEAD`
    public static let head: CourierHTTPMethod = "HEAD"
    /// `POST`
    public static let post: CourierHTTPMethod = "POST"
    /// `PUT`
    public static let put: CourierHTTPMethod = "PUT"
    /// `PATCH`
    public static let patch: CourierHTTPMethod = "PATCH"
    /// `DELETE`
    public static let delete: CourierHTTPMethod = "DELETE"
    /// `OPTIONS`
    public static let options: CourierHTTPMethod = "OPTIONS"
    /// `TRACE`
    public static let trace: CourierHTTPMethod = "TRACE"
    /// `CONNECT`
    public static let connect: CourierHTTPMethod = "CONNECT"

    /// Whether parameters go into the query string by default (GET, HEAD, DELETE).
    public var encodesParametersInQuery: Bool {
        self == .get || self == .head || self == .delete
    }

    /// Whether the method is idempotent per RFC 9110 §9.2.2.
    public var isIdempotent: Bool {
        [.get, .head, .put, .delete, .options, .trace].contains(self)
    }

    public var description: String { rawValue }
}

/// A method is encoded as its name, a single string (`"PATCH"`).
extension CourierHTTPMethod: Codable {}
