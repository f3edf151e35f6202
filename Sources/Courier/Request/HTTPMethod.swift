/// An HTTP request method, such as `GET` or `POST`.
///
/// Any token is accepted (`HTTPMethod("PROPFIND")`); a method holding characters that are not
/// allowed in an HTTP token is refused with ``CourierError/Kind/invalidMethod`` before sending.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method as sent on the wire.
    public let rawValue: String

    /// Creates a method from its name; names are case-sensitive (`get` is not `GET`).
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a method from its name.
    public init(_ name: String) { self.rawValue = name }
    /// Creates a method from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// `GET`
    public static let get: HTTPMethod = "GET"
    /// `HEAD`
    public static let head: HTTPMethod = "HEAD"
    /// `POST`
    public static let post: HTTPMethod = "POST"
    /// `PUT`
    public static let put: HTTPMethod = "PUT"
    /// `PATCH`
    public static let patch: HTTPMethod = "PATCH"
    /// `DELETE`
    public static let delete: HTTPMethod = "DELETE"
    /// `OPTIONS`
    public static let options: HTTPMethod = "OPTIONS"
    /// `TRACE`
    public static let trace: HTTPMethod = "TRACE"
    /// `CONNECT`
    public static let connect: HTTPMethod = "CONNECT"

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
extension HTTPMethod: Codable {}
