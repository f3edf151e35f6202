import NIOHTTP1

/// Entity-tag helpers (RFC 9110 §8.8.3, §13.1).
enum EntityTag {
    /// `value` as an entity-tag: kept if already quoted (`"x"` or `W/"x"`), else wrapped in quotes.
    static func quoted(_ value: String) -> String {
        if value.hasPrefix("\"") || value.hasPrefix("W/\"") { return value }
        return "\"\(value)\""
    }

    /// Splits the weakness flag from an entity-tag and removes the quotes.
    static func parse(_ tag: Substring) -> (weak: Bool, opaque: Substring) {
        var text = tag.trimmingSpaces()
        let weak = text.hasPrefix("W/")
        if weak { text = text.dropFirst(2) }
        if text.count >= 2, text.first == "\"", text.last == "\"" {
            text = text.dropFirst().dropLast()
        }
        return (weak, text)
    }

    /// Whether a header value listing entity-tags (or `*`) matches `etag`.
    ///
    /// - Parameter weakComparison: `true` for weak comparison (If-None-Match), `false` for strong (If-Match).
    static func listMatches(_ header: String, etag: String, weakComparison: Bool) -> Bool {
        let target = self.parse(etag[...])
        for element in self.splitList(header) {
            let trimmed = element.trimmingSpaces()
            if trimmed == "*" { return true }
            let candidate = self.parse(trimmed)
            guard candidate.opaque == target.opaque else { continue }
            if weakComparison || (!candidate.weak && !target.weak) { return true }
        }
        return false
    }

    /// Splits a comma-separated list, ignoring commas inside quotes.
    private static func splitList(_ header: String) -> [Substring] {
        var elements: [Substring] = []
        var start = header.startIndex
        var inQuotes = false
        for index in header.indices {
            if header[index] == "\"" {
                inQuotes.toggle()
            } else if header[index] == ",", !inQuotes {
                elements.append(header[start..<index])
                start = header.index(after: index)
            }
        }
        elements.append(header[start...])
        return elements.filter { !$0.trimmingSpaces().isEmpty }
    }
}

extension TestServerRoutes {
    /// The `Last-Modified` date used by `/cache` and (by default) `/range`, in IMF-fixdate form.
    static let fixedLastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
    /// The `ETag` used by `/cache`.
    static let cacheETag = "\"cache-v1\""

    /// All values of header `name`, joined with `", "` (or `nil` if absent).
    static func joinedHeader(_ request: TestRequest, _ name: String) -> String? {
        let values = request.head.headers[name]
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// `/cache`: 304 for any conditional request, else an echo with `Last-Modified` and `ETag`.
    static func cache(_ request: TestRequest) -> TestResponse {
        if request.header("If-Modified-Since") != nil || request.header("If-None-Match") != nil {
            return TestResponse(status: .notModified, headers: ["ETag": self.cacheETag])
        }
        return .json(
            EchoBuilder.echo(request),
            headers: ["Last-Modified": self.fixedLastModified, "ETag": self.cacheETag]
        )
    }

    /// `/cache/N`: an echo with `Cache-Control: public, max-age=N`.
    static func cacheControl(_ request: TestRequest, _ text: String) -> TestResponse {
        guard let seconds = Int(text), seconds >= 0 else {
            return .error(.badRequest, "invalid max-age \(text)")
        }
        return .json(EchoBuilder.echo(request), headers: ["Cache-Control": "public, max-age=\(seconds)"])
    }

    /// `/etag/ETAG`: 412 if `If-Match` does not match (strongly), else 304 if `If-None-Match` matches (weakly),
    /// else an echo with `ETag` (the path value, quoted unless it already is).
    static func etag(_ request: TestRequest, _ value: String) -> TestResponse {
        let etag = EntityTag.quoted(value)
        if let ifMatch = self.joinedHeader(request, "If-Match"),
            !EntityTag.listMatches(ifMatch, etag: etag, weakComparison: false)
        {
            return TestResponse(status: .preconditionFailed)
        }
        if let ifNoneMatch = self.joinedHeader(request, "If-None-Match"),
            EntityTag.listMatches(ifNoneMatch, etag: etag, weakComparison: true)
        {
            return TestResponse(status: .notModified, headers: ["ETag": etag])
        }
        return .json(EchoBuilder.echo(request), headers: ["ETag": etag])
    }
}
