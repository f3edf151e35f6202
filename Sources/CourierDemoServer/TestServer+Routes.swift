import Foundation
import NIOCore
import NIOHTTP1

/// The route table of ``TestServer``. Every route is a synchronous function from request to response, run on
/// the connection's event loop.
enum TestServerRoutes {
    /// Routes `request` to its handler, or answers 404.
    static func response(for request: TestRequest) -> TestResponse {
        if request.path.hasPrefix("/base64/") {
            return self.base64(request, value: URLEncoding.percentDecode(request.path.dropFirst("/base64/".count)))
        }
        let segments = request.segments
        guard let first = segments.first else { return self.notFound(request) }
        let rest = Array(segments.dropFirst())
        switch (first, rest.count) {
        case ("get", 0): return self.methodEcho(request, allowing: "GET")
        case ("post", 0): return self.methodEcho(request, allowing: "POST")
        case ("put", 0): return self.methodEcho(request, allowing: "PUT")
        case ("patch", 0): return self.methodEcho(request, allowing: "PATCH")
        case ("delete", 0): return self.methodEcho(request, allowing: "DELETE")
        case ("anything", _): return .json(EchoBuilder.echo(request))
        case ("idempotent", _): return self.idempotent(request)
        case ("polite", 0): return self.polite(request)
        case ("multipart", 0): return self.multipart(request)
        case ("headers", 0): return self.headers(request)
        case ("user-agent", 0): return self.userAgent(request)
        case ("ip", 0): return self.ip(request)
        case ("count", 0): return .json(.object([("count", .int(Int64(request.requestCount)))]))
        case ("flaky", 0): return self.flaky(request)
        case ("status", 1): return self.status(rest[0])
        case ("redirect", 1), ("relative-redirect", 1): return self.redirect(request, rest[0], absolute: false)
        case ("absolute-redirect", 1): return self.redirect(request, rest[0], absolute: true)
        case ("redirect-to", 0): return self.redirectTo(request)
        case ("basic-auth", 2): return self.basicAuth(request, user: rest[0], password: rest[1])
        case ("bearer", 0): return self.bearerToken(request)
        case ("digest-auth", 3), ("digest-auth", 4): return self.digestAuth(request, rest)
        case ("response-headers", 0): return self.responseHeaders(request)
        case ("cookies", 0): return self.cookies(request)
        case ("cookies", 1) where rest[0] == "set": return self.setCookies(request)
        case ("cookies", 1) where rest[0] == "delete": return self.deleteCookies(request)
        case ("cookies", 1) where rest[0] == "redirect": return self.redirectSettingCookies(request)
        case ("delay", 1): return self.delay(request, rest[0])
        case ("gate", 1): return self.gate(request, rest[0])
        case ("content", 1): return self.content(request, rest[0])
        case ("drip", 0): return self.drip(request)
        case ("bytes", 1): return self.bytes(request, rest[0], streamed: false)
        case ("stream-bytes", 1): return self.bytes(request, rest[0], streamed: true)
        case ("stream", 1): return self.stream(request, rest[0])
        case ("events", 0): return self.events(request)
        case ("gzip", 0): return self.compressed(request, format: .gzip)
        case ("deflate", 0): return self.compressed(request, format: .zlib)
        case ("gzip-bomb", 0): return self.gzipBomb(request)
        case ("bomb", 0): return self.bomb(request)
        case ("encoded", 0): return self.encoded(request)
        case ("trailers", 0): return self.trailers(request)
        case ("cache", 0): return self.cache(request)
        case ("cache", 1): return self.cacheControl(request, rest[0])
        case ("cacheable", 0): return self.cacheable(request)
        case ("etag", 1): return self.etag(request, rest[0])
        case ("range", 1): return self.range(request, rest[0])
        case ("files", _): return self.range(request, request.queryValue("size") ?? "1000")
        case ("json", 0): return .text(SampleDocuments.json, contentType: "application/json")
        case ("html", 0): return .text(SampleDocuments.html, contentType: "text/html; charset=utf-8")
        case ("xml", 0): return .text(SampleDocuments.xml, contentType: "application/xml")
        case ("conformance", 1): return self.conformance(request, rest[0])
        case ("close", 0):
            var response = TestResponse.text("bye")
            response.closeConnection = true
            return response
        default: return self.notFound(request)
        }
    }

    /// `/flaky?failures=N&status=S&retry_after=V&key=K&then_delay=D`: the first N requests for
    /// this exact URL (add a `key` to tell tests apart) answer S (default 503), with
    /// `Retry-After: V` when given; later ones answer 200 with the echo, after D seconds (at
    /// most 10) when given.
    static func flaky(_ request: TestRequest) -> TestResponse {
        let failures = request.queryValue("failures").flatMap { Int($0) } ?? 1
        let status = request.queryValue("status").flatMap { Int($0) } ?? 503
        guard request.sameURICount > failures else {
            var headers = HTTPHeaders()
            if let retryAfter = request.queryValue("retry_after") { headers.add(name: "Retry-After", value: retryAfter) }
            return TestResponse(status: HTTPResponseStatus(statusCode: status), headers: headers)
        }
        var response = TestResponse.json(EchoBuilder.echo(request))
        if let text = request.queryValue("then_delay"), let delay = self.seconds(text, default: 0, maximum: 10) { response.delay = delay }
        return response
    }

    static func notFound(_ request: TestRequest) -> TestResponse {
        .error(.notFound, "no route for \(request.path)")
    }

    /// `/status/N`: an empty response with that status (plus `Location` for 3xx, a challenge for 401).
    static func status(_ text: String) -> TestResponse {
        guard let code = Int(text), (200...999).contains(code) else {
            return .error(.badRequest, "invalid status code \(text)")
        }
        var response = TestResponse(status: HTTPResponseStatus(statusCode: code))
        if (300...399).contains(code) {
            response.headers.add(name: "Location", value: "/get")
        }
        if code == 401 {
            response.headers.add(name: "WWW-Authenticate", value: "Basic realm=\"Fake Realm\"")
        }
        return response
    }

    /// `/redirect/N`, `/relative-redirect/N` and `/absolute-redirect/N`.
    static func redirect(_ request: TestRequest, _ text: String, absolute: Bool) -> TestResponse {
        guard let count = Int(text), count >= 1 else {
            return .error(.badRequest, "invalid redirect count \(text)")
        }
        let useAbsolute = absolute || request.queryValue("absolute")?.lowercased() == "true"
        let kind = useAbsolute ? "absolute-redirect" : "relative-redirect"
        let next = count == 1 ? "/get" : "/\(kind)/\(count - 1)"
        let location = useAbsolute ? "http://127.0.0.1:\(request.port)\(next)" : next
        return TestResponse(status: .found, headers: ["Location": location])
    }

    /// `/redirect-to?url=URL&status_code=N`.
    static func redirectTo(_ request: TestRequest) -> TestResponse {
        guard let url = request.queryValue("url") else {
            return .error(.badRequest, "missing url parameter")
        }
        var code = 302
        if let text = request.queryValue("status_code"), let parsed = Int(text), (300...399).contains(parsed) {
            code = parsed
        }
        return TestResponse(status: HTTPResponseStatus(statusCode: code), headers: ["Location": url])
    }

    /// `/basic-auth/USER/PASS`.
    static func basicAuth(_ request: TestRequest, user: String, password: String) -> TestResponse {
        let expected = "Basic " + URLEncoding.base64Encode(Array("\(user):\(password)".utf8))
        guard let authorization = request.header("Authorization"), authorization == expected else {
            var response = TestResponse(status: .unauthorized)
            response.headers.add(name: "WWW-Authenticate", value: "Basic realm=\"Fake Realm\"")
            return response
        }
        return .json(.object([("authenticated", .bool(true)), ("user", .string(user))]))
    }

    /// `/bearer`: 200 with the token if `Authorization: Bearer TOKEN` is present, else 401.
    static func bearer(_ request: TestRequest) -> TestResponse {
        guard let authorization = request.header("Authorization"), authorization.lowercased().hasPrefix("bearer "),
            authorization.count > 7
        else {
            return TestResponse(status: .unauthorized, headers: ["WWW-Authenticate": "Bearer"])
        }
        let token = String(authorization.dropFirst(7))
        return .json(.object([("authenticated", .bool(true)), ("token", .string(token))]))
    }

    /// `/response-headers?Name=value...`: adds those headers (in order) and echoes them. Fields with invalid names
    /// or values, `Content-Length` and `Transfer-Encoding` are skipped.
    static func responseHeaders(_ request: TestRequest) -> TestResponse {
        // Only fields that can be sent as-is (token names, values without CR, LF or NUL).
        let items = request.queryItems.filter { name, value in
            self.isToken(name) && !value.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }
        }
        var headers = HTTPHeaders()
        for (name, value) in items {
            let lowered = name.lowercased()
            guard lowered != "content-length" && lowered != "transfer-encoding" else { continue }
            headers.add(name: name, value: value)
        }
        if !headers.contains(name: "Content-Type") {
            headers.add(name: "Content-Type", value: "application/json")
        }
        return TestResponse(status: .ok, headers: headers, body: .bytes(JSONValue.multiValueObject(items).encoded()))
    }

    /// `/base64/VALUE?content_type=CT`: the decoded value as the body.
    static func base64(_ request: TestRequest, value: String) -> TestResponse {
        guard let bytes = URLEncoding.base64Decode(value) else {
            return .error(.badRequest, "incorrect base64 data")
        }
        let type = request.queryValue("content_type") ?? "application/octet-stream"
        return TestResponse(status: .ok, headers: ["Content-Type": type], body: .bytes(bytes))
    }

    /// Whether `name` is a valid header field name (an RFC 9110 token).
    static func isToken(_ name: String) -> Bool {
        let symbols = Set("!#$%&'*+-.^_`|~".unicodeScalars)
        return !name.isEmpty
            && name.unicodeScalars.allSatisfy { scalar in
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || symbols.contains(scalar)
            }
    }
}
