import NIOHTTP1

/// The route for HTTP cache tests: every caching field of the response is set by the query,
/// and each answer says how many requests the URL has had.
extension TestServerRoutes {
    /// Query parameters of `/cacheable` that become response fields, and the field each sets.
    static let cacheableFields = [
        ("cc", "Cache-Control"), ("etag", "ETag"), ("last_modified", "Last-Modified"), ("expires", "Expires"),
        ("date", "Date"), ("age", "Age"), ("vary", "Vary"), ("location", "Location"),
        ("content_location", "Content-Location"), ("connection", "Connection"),
    ]

    /// `/cacheable?cc=&etag=&last_modified=&expires=&date=&age=&vary=&status=&h=NAME:VALUE&
    /// not_modified_h=NAME:VALUE&fail_after=N&key=K`: a `text/plain` body `hit N`, N being how
    /// many requests this exact URL has had (this one included), with each field the query
    /// gives (a parameter given twice gives two field lines; `h` adds any field). Answers an
    /// empty `304` with the `ETag`, `Cache-Control`, `Expires`, `Date` and `Vary` fields, and
    /// the `not_modified_h` fields, when `If-None-Match` lists the `etag` (weak comparison), or
    /// when there is no `If-None-Match` and `If-Modified-Since` equals `last_modified`. With
    /// `fail_after=N`, requests after the Nth answer an empty `503`. Any method is accepted.
    static func cacheable(_ request: TestRequest) -> TestResponse {
        if let limit = request.queryValue("fail_after").flatMap(Int.init), request.sameURICount > limit {
            return TestResponse(status: .serviceUnavailable)
        }
        var headers = HTTPHeaders()
        for (parameter, field) in cacheableFields {
            for (name, value) in request.queryItems where name == parameter {
                headers.add(name: field, value: parameter == "etag" ? EntityTag.quoted(value) : value)
            }
        }
        if self.isNotModified(request) {
            var answer = HTTPHeaders()
            for (name, value) in headers where ["etag", "cache-control", "expires", "date", "vary"].contains(name.lowercased()) {
                answer.add(name: name, value: value)
            }
            self.addFields(named: "not_modified_h", of: request, to: &answer)
            return TestResponse(status: .notModified, headers: answer)
        }
        self.addFields(named: "h", of: request, to: &headers)
        headers.add(name: "Content-Type", value: "text/plain")
        let status = request.queryValue("status").flatMap(Int.init) ?? 200
        return TestResponse(
            status: HTTPResponseStatus(statusCode: status), headers: headers,
            body: .bytes(Array("hit \(request.sameURICount)".utf8))
        )
    }

    /// Whether a conditional request to `/cacheable` is answered with `304`.
    private static func isNotModified(_ request: TestRequest) -> Bool {
        if let ifNoneMatch = self.joinedHeader(request, "If-None-Match") {
            guard let etag = request.queryValue("etag") else { return false }
            return EntityTag.listMatches(ifNoneMatch, etag: EntityTag.quoted(etag), weakComparison: true)
        }
        guard let since = request.header("If-Modified-Since"), let modified = request.queryValue("last_modified") else {
            return false
        }
        return since == modified
    }

    /// Adds the `NAME:VALUE` fields of query parameter `parameter`.
    private static func addFields(named parameter: String, of request: TestRequest, to headers: inout HTTPHeaders) {
        for (name, value) in request.queryItems where name == parameter {
            guard let colon = value.firstIndex(of: ":") else { continue }
            headers.add(name: String(value[..<colon]), value: String(value[value.index(after: colon)...].trimmingSpaces()))
        }
    }
}
