/// A check a response must pass before its value is decoded.
///
/// A failed check throws ``CourierError`` of kind ``CourierError/Kind/validationFailed``
/// carrying the response.
///
/// ```swift
/// request.validators = [.statusCode(200..<300), .contentType(["application/json"])]
/// ```
public struct ResponseValidator: Sendable {
    /// A short name used in error messages.
    public let name: String
    private let check: @Sendable (CourierResponse) throws -> Void

    /// A custom validator. Throw any error to reject the response; it is wrapped in a
    /// ``CourierError`` that keeps the response and your error.
    public init(name: String, _ check: @escaping @Sendable (CourierResponse) throws -> Void) {
        self.name = name
        self.check = check
    }

    /// Runs the check.
    public func validate(_ response: CourierResponse) throws(CourierError) {
        do {
            try check(response)
        } catch let error as CourierError {
            throw error
        } catch {
            throw CourierError(
                .validationFailed, "The \(name) validator rejected the response: \(error).",
                url: response.url, response: response, underlyingError: error
            )
        }
    }

    /// Accepts status codes in `range`.
    public static func statusCode(_ range: Range<Int>) -> ResponseValidator {
        statusCode(accepts: range.contains) { "\(range.lowerBound)..<\(range.upperBound)" }
    }

    /// Accepts the listed status codes.
    public static func statusCode(_ codes: Set<Int>) -> ResponseValidator {
        statusCode(accepts: codes.contains) { codes.sorted().map(String.init).joined(separator: ", ") }
    }

    /// A status-code validator; `description` names the accepted codes, and is only made for
    /// the error message.
    private static func statusCode(
        accepts: @escaping @Sendable (Int) -> Bool, description: @escaping @Sendable () -> String
    ) -> ResponseValidator {
        ResponseValidator(name: "status code") { response in
            guard accepts(response.status) else {
                throw CourierError(
                    .validationFailed,
                    "The server answered \(response.status) \(response.reasonPhrase), and only \(description()) is accepted; inspect error.response, or widen the request's validators.",
                    url: response.url, response: response
                )
            }
        }
    }

    /// Accepts bodies whose media type matches one of `types` (`application/json`,
    /// `text/*`, `*/*`). An empty body without `Content-Type` passes.
    public static func contentType(_ types: [String]) -> ResponseValidator {
        let accepted = types.map { $0.lowercased().split(separator: ";").first.map(String.init) ?? "" }
        return ResponseValidator(name: "content type") { response in
            guard let mediaType = response.mediaType else {
                if response.body.isEmpty { return }
                throw CourierError(
                    .validationFailed,
                    "The response has a body but no Content-Type; expected one of \(types.joined(separator: ", ")).",
                    url: response.url, response: response
                )
            }
            let parts = mediaType.split(separator: "/", maxSplits: 1).map(String.init)
            let matches = accepted.contains { pattern in
                let expected = pattern.split(separator: "/", maxSplits: 1).map(String.init)
                guard expected.count == 2, parts.count == 2 else { return pattern == mediaType }
                return (expected[0] == "*" || expected[0] == parts[0]) && (expected[1] == "*" || expected[1] == parts[1])
            }
            guard matches else {
                throw CourierError(
                    .validationFailed,
                    "The response is \(mediaType), and only \(types.joined(separator: ", ")) is accepted.",
                    url: response.url, response: response
                )
            }
        }
    }

    /// Accepts JSON bodies that match `template` (YTKNetwork's `jsonValidator`).
    public static func json(_ template: JSONTemplate) -> ResponseValidator {
        ResponseValidator(name: "JSON structure") { response in
            let value: JSONValue
            do {
                value = try response.json()
            } catch {
                throw CourierError(
                    .validationFailed, "The body is not JSON, so it cannot have the expected structure: \((error as? CourierError)?.message ?? "\(error)")",
                    url: response.url, response: response, underlyingError: error
                )
            }
            if let mismatch = template.mismatch(in: value, path: "$") {
                throw CourierError(
                    .validationFailed,
                    "The JSON body does not have the expected structure: \(mismatch).",
                    url: response.url, response: response
                )
            }
        }
    }
}
