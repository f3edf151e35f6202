import NIOHTTP1

/// Builds the httpbin-style echo documents.
enum EchoBuilder {
    /// The full echo object: `method`, `url`, `path`, `args`, `headers`, `origin`, `data`, `form`, `files`, `json`,
    /// followed by `extra` members.
    static func echo(_ request: TestRequest, extra: [(String, JSONValue)] = []) -> JSONValue {
        let (form, files) = self.formAndFiles(request)
        let members: [(String, JSONValue)] = [
            ("method", .string(request.method)),
            ("url", .string(request.fullURL)),
            ("path", .string(String(request.path))),
            ("args", JSONValue.multiValueObject(request.queryItems)),
            ("headers", request.headersJSON),
            ("origin", .string(request.remoteAddress ?? "")),
            ("data", .string(URLEncoding.textOrDataURL(request.body))),
            ("form", form),
            ("files", files),
            ("json", self.json(request)),
        ]
        return .object(members + extra)
    }

    /// The short echo used by `/gzip`-like routes: `method`, `headers`, `origin`.
    static func summary(_ request: TestRequest) -> [(String, JSONValue)] {
        [
            ("method", .string(request.method)),
            ("headers", request.headersJSON),
            ("origin", .string(request.remoteAddress ?? "")),
        ]
    }

    /// The parsed JSON body when the content type mentions `json`, else `null`.
    static func json(_ request: TestRequest) -> JSONValue {
        guard let contentType = request.header("Content-Type"), contentType.lowercased().contains("json") else {
            return .null
        }
        return JSONValue.parse(request.body) ?? .null
    }

    /// The `form` and `files` objects, from an urlencoded or multipart body.
    static func formAndFiles(_ request: TestRequest) -> (form: JSONValue, files: JSONValue) {
        let contentType = request.header("Content-Type") ?? ""
        let mediaType = Substring(contentType.prefix { $0 != ";" }).trimmingSpaces().lowercased()
        switch mediaType {
        case "application/x-www-form-urlencoded":
            let text = String(decoding: request.body, as: UTF8.self)
            return (JSONValue.multiValueObject(URLEncoding.parsePairs(text[...], plusAsSpace: true)), .object([]))
        case "multipart/form-data":
            guard let boundary = Multipart.parameter("boundary", in: contentType), !boundary.isEmpty else {
                return (.object([]), .object([]))
            }
            var form: [(String, String)] = []
            var files: [(String, String)] = []
            for part in Multipart.parse(request.body, boundary: boundary) {
                if part.filename != nil {
                    let type = part.contentType ?? "application/octet-stream"
                    files.append((part.name, URLEncoding.textOrDataURL(part.content, contentType: type)))
                } else {
                    form.append((part.name, URLEncoding.textOrDataURL(part.content)))
                }
            }
            return (JSONValue.multiValueObject(form), JSONValue.multiValueObject(files))
        default:
            return (.object([]), .object([]))
        }
    }
}

extension TestServerRoutes {
    /// `/get`, `/post`, ...: echo if the method is `method` (or `HEAD` for `GET`), else 405.
    static func methodEcho(_ request: TestRequest, allowing method: String) -> TestResponse {
        guard request.method == method || (method == "GET" && request.isHead) else {
            var response = TestResponse.error(.methodNotAllowed, "method \(request.method) not allowed")
            response.headers.add(name: "Allow", value: method == "GET" ? "GET, HEAD" : method)
            return response
        }
        return .json(EchoBuilder.echo(request))
    }

    /// `/headers`.
    static func headers(_ request: TestRequest) -> TestResponse {
        .json(.object([("headers", request.headersJSON)]))
    }

    /// `/user-agent`.
    static func userAgent(_ request: TestRequest) -> TestResponse {
        .json(.object([("user-agent", request.header("User-Agent").map(JSONValue.string) ?? .null)]))
    }

    /// `/ip`.
    static func ip(_ request: TestRequest) -> TestResponse {
        .json(.object([("origin", .string(request.remoteAddress ?? ""))]))
    }
}
