/// One header field of a ``RecordedRequest``: the name exactly as the client sent it, and its value.
public struct RecordedHeader: Sendable, Hashable {
    /// The field name, with the capitalisation used by the client.
    public var name: String
    /// The field value, with surrounding whitespace removed.
    public var value: String

    /// Creates a header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A request received by a ``TestServer``, recorded before the server answered it.
public struct RecordedRequest: Sendable, Hashable {
    /// The request method, e.g. `"GET"`.
    public var method: String
    /// The request target exactly as sent on the request line: path plus query, e.g. `"/get?x=1"`.
    public var uri: String
    /// The header fields in the order they were received; repeated fields appear once per occurrence.
    public var headers: [RecordedHeader]
    /// The request body (after the transfer coding was removed), empty if there was none.
    public var body: [UInt8]

    /// Creates a recorded request.
    public init(method: String, uri: String, headers: [RecordedHeader], body: [UInt8]) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
    }

    /// The value of the first header field called `name` (compared case-insensitively), or `nil`.
    public func header(_ name: String) -> String? {
        self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The values of every header field called `name` (compared case-insensitively), in order.
    public func headerValues(_ name: String) -> [String] {
        self.headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The path part of ``uri`` (everything before the first `?`).
    public var path: String {
        String(self.uri.prefix { $0 != "?" })
    }

    /// The body decoded as UTF-8 (invalid sequences are replaced by U+FFFD).
    public var bodyString: String {
        String(decoding: self.body, as: UTF8.self)
    }
}
