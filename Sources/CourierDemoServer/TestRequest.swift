import NIOCore
import NIOHTTP1

/// A fully received request, as seen by the ``TestServer`` routes.
struct TestRequest {
    let head: HTTPRequestHead
    let body: [UInt8]
    /// The trailer fields that ended the request's body, if any.
    var trailers: HTTPHeaders?
    /// The server's port (used for absolute URLs).
    let port: Int
    /// The peer's IP address, if known.
    let remoteAddress: String?
    /// The number of requests the server has recorded so far, this one included.
    let requestCount: Int
    /// How many requests with this exact target the server has received, this one included.
    let sameURICount: Int
    /// The nonces the server issued on its Digest routes.
    let nonces: DigestNonces
    /// The keys the server's `/idempotent` route has seen.
    let ledger: IdempotencyLedger
    /// What the `/polite` route saw.
    let traffic: TrafficLedger
    /// What tests published for `/content/NAME`.
    let contents: PublishedContents

    /// The raw (still percent-encoded) path, without the query.
    let path: Substring
    /// The raw query (without `?`), or `nil` if the target has none.
    let query: Substring?

    init(
        head: HTTPRequestHead, body: [UInt8], port: Int, remoteAddress: String?, requestCount: Int, sameURICount: Int = 1,
        nonces: DigestNonces = DigestNonces(), ledger: IdempotencyLedger = IdempotencyLedger(),
        contents: PublishedContents = PublishedContents(), traffic: TrafficLedger = TrafficLedger()
    ) {
        self.traffic = traffic
        self.ledger = ledger
        self.contents = contents
        self.sameURICount = sameURICount
        self.nonces = nonces
        self.head = head
        self.body = body
        self.port = port
        self.remoteAddress = remoteAddress
        self.requestCount = requestCount
        var target = Substring(head.uri)
        if target.hasPrefix("http://") || target.hasPrefix("https://") {
            // absolute-form: drop scheme and authority.
            let afterScheme = target[target.index(target.firstIndex(of: ":")!, offsetBy: 3)...]
            target = afterScheme[(afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex)...]
        }
        if let mark = target.firstIndex(of: "?") {
            self.path = target[..<mark]
            self.query = target[target.index(after: mark)...]
        } else {
            self.path = target
            self.query = nil
        }
    }

    /// The request method name, e.g. `"GET"`.
    var method: String { self.head.method.rawValue }

    /// Whether this is a `HEAD` request (its response must not carry a body).
    var isHead: Bool { self.head.method == .HEAD }

    /// The decoded path segments, e.g. `["basic-auth", "user", "pass"]`.
    var segments: [String] {
        self.path.split(separator: "/", omittingEmptySubsequences: true).map { URLEncoding.percentDecode($0) }
    }

    /// The decoded query parameters in order (`+` is a literal `+`, per RFC 3986).
    var queryItems: [(String, String)] {
        self.query.map { URLEncoding.parsePairs($0, plusAsSpace: false) } ?? []
    }

    /// The first value of query parameter `name`.
    func queryValue(_ name: String) -> String? {
        self.queryItems.first { $0.0 == name }?.1
    }

    /// The first value of header `name` (case-insensitive).
    func header(_ name: String) -> String? {
        self.head.headers.first(name: name)
    }

    /// The origin the client addressed: the `Host` header, or `127.0.0.1:port`.
    var authority: String {
        self.header("Host") ?? "127.0.0.1:\(self.port)"
    }

    /// The full URL of the request as received, including the query.
    var fullURL: String {
        if self.head.uri.hasPrefix("http://") || self.head.uri.hasPrefix("https://") {
            return self.head.uri
        }
        return "http://\(self.authority)\(self.head.uri)"
    }

    /// The header fields as a JSON object: names as first sent, repeated names joined with `", "`.
    var headersJSON: JSONValue {
        var order: [String] = []
        var names: [String: String] = [:]
        var values: [String: [String]] = [:]
        for (name, value) in self.head.headers {
            let key = name.lowercased()
            if names[key] == nil {
                names[key] = name
                order.append(key)
            }
            values[key, default: []].append(value)
        }
        return .object(order.map { (names[$0]!, .string(values[$0]!.joined(separator: ", "))) })
    }
}

extension RecordedRequest {
    /// Records a received request head and body.
    init(head: HTTPRequestHead, body: [UInt8]) {
        self.init(
            method: head.method.rawValue,
            uri: head.uri,
            headers: head.headers.map { RecordedHeader(name: $0.name, value: $0.value) },
            body: body
        )
    }
}
