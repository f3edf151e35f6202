// Code written against the names from before 0.3.0. With the DeprecatedNames trait it builds,
// with a deprecation warning for each old name.
import Courier
import Foundation

struct GetProfile: Endpoint {
    typealias Value = Response
    var path: String { "/profile" }
}

func profile(with client: Client) async throws -> Response {
    var request = Request<Response>(method: HTTPMethod("GET"), path: "/profile")
    request.body = RequestBody.text("hi")
    let parameters: Parameters = ["q": "swift"]
    let cookie = Cookie(name: "a", value: "b", domain: "example.com")
    let id: RequestID? = nil
    let prepared: HTTPRequest? = nil
    let policy: RetryPolicy = .none
    let entry: CacheEntry? = nil
    let transport: AsyncHTTPClientTransport? = nil
    _ = (parameters, cookie, id, prepared, policy, entry, transport)
    return try await client.send(request)
}
