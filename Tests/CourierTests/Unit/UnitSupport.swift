import Foundation
import Testing

@testable import Courier

/// Helpers shared by the unit suites (namespaced to avoid clashing with the integration tests,
/// which live in the same module).
enum UnitSupport {
    /// Runs `body` and returns the `CourierError` it threw, or `nil` when it did not throw.
    /// Any other error is recorded as a test issue (and `nil` is returned).
    static func error<T>(
        _ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation
    ) -> CourierError? {
        do {
            _ = try body()
            return nil
        } catch let error as CourierError {
            return error
        } catch {
            Issue.record("expected a CourierError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// A URL from a literal known to be valid.
    static func url(_ text: String) -> URL {
        guard let url = URL(string: text) else { fatalError("bad test URL literal \(text)") }
        return url
    }

    /// A response built directly, without any network.
    static func response(
        status: Int = 200,
        headers: Headers = Headers(),
        body: Data = Data(),
        url: String = "https://example.com/resource"
    ) -> CourierResponse {
        CourierResponse(status: status, headers: headers, body: body, url: UnitSupport.url(url))
    }

    /// A response with a UTF-8 text body.
    static func response(status: Int = 200, contentType: String?, text: String) -> CourierResponse {
        var headers = Headers()
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        return response(status: status, headers: headers, body: Data(text.utf8))
    }

    /// The body's bytes as UTF-8 text (for comparing encoded bodies byte for byte).
    static func text(of body: CourierRequestBody) -> String? {
        body.bytes.map { String(decoding: $0, as: UTF8.self) }
    }
}
