import NIOHTTP1

extension TestServerRoutes {
    /// `/multipart` (any method): the parts of a `multipart/form-data` body, in order, as
    /// `{"boundary": B, "parts": [{"name", "filename", "filename*", "content_type",
    /// "disposition", "size", "content"}]}`; `filename*` is decoded, `content` is text or a
    /// `data:` URL. A body that is not multipart is a 400.
    static func multipart(_ request: TestRequest) -> TestResponse {
        let contentType = request.header("Content-Type") ?? ""
        let mediaType = Substring(contentType.prefix { $0 != ";" }).trimmingSpaces().lowercased()
        guard mediaType == "multipart/form-data", let boundary = Multipart.parameter("boundary", in: contentType),
            !boundary.isEmpty
        else {
            return .error(.badRequest, "not a multipart/form-data body with a boundary")
        }
        let parts = Multipart.parse(request.body, boundary: boundary).map { part -> JSONValue in
            func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
            return .object([
                ("name", .string(part.name)),
                ("filename", optional(part.filename)),
                ("filename*", optional(part.extendedFilename)),
                ("content_type", optional(part.contentType)),
                ("disposition", .string(part.disposition)),
                ("size", .int(Int64(part.content.count))),
                ("content", .string(URLEncoding.textOrDataURL(part.content))),
            ])
        }
        return .json(.object([("boundary", .string(boundary)), ("parts", .array(parts))]))
    }
}
