/// Where a request's ``CourierRequest/parameters`` go, and in which encoding.
public enum ParameterEncoding: Sendable, Hashable {
    /// Query string for GET, HEAD and DELETE; otherwise the body, in the client's
    /// ``ClientConfiguration/defaultBodyEncoding``.
    case automatic
    /// Always the query string.
    case query
    /// Always the body, in the given encoding.
    case body(BodyEncoding)
}

/// How parameters are written into a request body.
public enum BodyEncoding: Sendable, Hashable {
    /// `application/x-www-form-urlencoded`.
    case form
    /// `application/json`.
    case json
    /// A property list (`application/x-plist`), XML or binary.
    case propertyList(PropertyListFormat)
}

/// The two property-list serialisations Courier writes.
public enum PropertyListFormat: Sendable, Hashable {
    /// The XML format.
    case xml
    /// The binary format (`bplist00`).
    case binary
}
