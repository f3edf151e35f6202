import NIOHTTP1

/// The cookie routes of ``TestServer``, in httpbin's style.
extension TestServerRoutes {
    /// `/cookies`: `{"cookies": {name: value, …}, "header": "…"}` from the request's `Cookie`
    /// header (`header` is the field as received, `""` when absent, so tests can check order).
    static func cookies(_ request: TestRequest) -> TestResponse {
        let header = request.head.headers[canonicalForm: "Cookie"].joined(separator: "; ")
        let pairs: [(String, String)] = header.split(separator: ";").compactMap { piece in
            let trimmed = piece.trimmingSpaces()
            guard let equals = trimmed.firstIndex(of: "=") else { return nil }
            return (String(trimmed[..<equals]), String(trimmed[trimmed.index(after: equals)...]))
        }
        return .json(.object([("cookies", JSONValue.multiValueObject(pairs)), ("header", .string(header))]))
    }

    /// `/cookies/set?name=value&…`: sets each query item as a cookie with `Path=/`, then
    /// redirects (302) to `/cookies`.
    static func setCookies(_ request: TestRequest) -> TestResponse {
        var headers: HTTPHeaders = ["Location": "/cookies"]
        for (name, value) in request.queryItems {
            headers.add(name: "Set-Cookie", value: "\(name)=\(value); Path=/")
        }
        return TestResponse(status: .found, headers: headers)
    }

    /// `/cookies/delete?name&…`: expires each named cookie (`Max-Age=0`, `Path=/`), then
    /// redirects (302) to `/cookies`.
    static func deleteCookies(_ request: TestRequest) -> TestResponse {
        var headers: HTTPHeaders = ["Location": "/cookies"]
        for (name, _) in request.queryItems {
            headers.add(name: "Set-Cookie", value: "\(name)=; Max-Age=0; Path=/")
        }
        return TestResponse(status: .found, headers: headers)
    }

    /// `/cookies/redirect?to=URL&set=FIELD&…&status=N`: redirects to `to` (302 unless
    /// `status` says otherwise) with a `Set-Cookie: FIELD` for each `set`, sent as given.
    static func redirectSettingCookies(_ request: TestRequest) -> TestResponse {
        guard let target = request.queryValue("to") else { return .error(.badRequest, "missing to parameter") }
        let status = request.queryValue("status").flatMap { Int($0) }.flatMap { (300...399).contains($0) ? $0 : nil } ?? 302
        var headers: HTTPHeaders = ["Location": target]
        for (name, value) in request.queryItems where name == "set" {
            headers.add(name: "Set-Cookie", value: value)
        }
        return TestResponse(status: HTTPResponseStatus(statusCode: status), headers: headers)
    }
}
