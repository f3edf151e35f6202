import Courier
import CourierQueue
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Counts the requests it sees and marks each one with `X-Intercepted`.
private final class MarkingInterceptor: Interceptor {
    private let seen = NIOLockedValueBox<[String]>([])

    var paths: [String] { seen.withLockedValue { $0 } }

    func intercept(_ request: CourierHTTPRequest, next: Next) async throws -> CourierResponse {
        seen.withLockedValue { $0.append(request.url.path) }
        var request = request
        request.headers.set(name: "X-Intercepted", value: "yes")
        return try await next(request)
    }
}

/// Answers every request itself, without the network.
private struct AnsweringInterceptor: Interceptor {
    func intercept(_ request: CourierHTTPRequest, next: Next) async throws -> CourierResponse {
        CourierResponse(status: 200, headers: ["Content-Length": "7"], body: Data("stubbed".utf8), url: request.url)
    }
}

@Suite("Downloads, streams and buffered requests take one path")
struct OneRequestPathTests {
    /// The three kinds of credential a client holds, each with a route that demands it.
    static let credentials: [(path: String, credential: Credential)] = [
        ("/basic-auth/ada/s3cret", .password(user: "ada", password: "s3cret")),
        ("/digest-auth/auth/ada/s3cret/SHA-256", .password(user: "ada", password: "s3cret")),
        ("/bearer?token=tok-1", .bearer("tok-1")),
    ]

    @Test("a download authenticates with the client's credentials and runs its interceptors", arguments: 0..<3)
    func downloadAuthenticates(index: Int) async throws {
        let (path, credential) = Self.credentials[index]
        let interceptor = MarkingInterceptor()
        try await withTemporaryFolder { folder in
            try await withServer { server in
                try await withClient(
                    server,
                    configure: {
                        $0.authentication = Authentication(credential)
                        $0.interceptors = [interceptor]
                    }
                ) { client in
                    let file = folder.appendingPathComponent("answer.json")
                    let result = try await client.download(CourierRequest<Void>(path: path), to: .file(file))
                    #expect(result.response.status == 200)
                    let body = try String(contentsOf: file, encoding: .utf8)
                    #expect(body.contains("authenticated") || body.contains("tok-1"), "\(body)")
                    let last = try #require(server.receivedRequests.last)
                    #expect(last.header("Authorization") != nil)
                    #expect(last.header("X-Intercepted") == "yes")
                    #expect(interceptor.paths.count == 1)
                }
            }
        }
    }

    @Test("a download's credentials follow a same-origin redirect and never a cross-origin one")
    func downloadCredentialsStayOnTheirOrigin() async throws {
        try await withTemporaryFolder { folder in
            try await withTwoServers { first, second in
                try await withClient(first, configure: { $0.authentication = Authentication(.bearer("tok-1")) }) { client in
                    // Same origin: the token goes on to the redirect's target.
                    let same = folder.appendingPathComponent("same")
                    let target = "/bearer?token=tok-1".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                    _ = try await client.download(CourierRequest<Void>(path: "/redirect-to?url=\(target)"), to: .file(same))
                    #expect(first.receivedRequests.allSatisfy { $0.header("Authorization") == "Bearer tok-1" })

                    // Another origin: neither the configured token nor a header the request set crosses.
                    let other = folder.appendingPathComponent("other")
                    let away = second.url("/range/100").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                    var request = CourierRequest<Void>(path: "/redirect-to?url=\(away)")
                    request.headers.add(name: "Cookie", value: "session=42")
                    let result = try await client.download(request, to: .file(other))
                    #expect(result.bytes == 100)
                    #expect(result.response.redirects.count == 1)
                    let crossed = try #require(second.receivedRequests.last)
                    #expect(crossed.header("Authorization") == nil)
                    #expect(crossed.header("Cookie") == nil)
                }
            }
        }
    }

    @Test("a streamed response carries the client's credentials and interceptors, and reads past the collected-body limit")
    func streamAuthenticatesAndIsUnbounded() async throws {
        let interceptor = MarkingInterceptor()
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.authentication = Authentication(.password(user: "ada", password: "s3cret"))
                    $0.interceptors = [interceptor]
                    $0.limits.maximumBodySize = 64 * 1024
                }
            ) { client in
                let answer = try await client.stream(CourierRequest<Void>(path: "/digest-auth/auth/ada/s3cret/MD5")) { response in
                    try await response.body.collect(upTo: 1 << 20)
                }
                #expect(String(decoding: answer, as: UTF8.self).contains("\"authenticated\""))
                #expect(server.receivedRequests.last?.header("X-Intercepted") == "yes")

                let size = 3 * 1024 * 1024
                let counted = try await client.stream(CourierRequest<Void>(path: "/range/\(size)")) { response in
                    var count = 0
                    for try await piece in response.body { count += piece.count }
                    return count
                }
                #expect(counted == size)
                let error = await courierError { _ = try await client.send(CourierRequest<Data>(path: "/range/\(size)")) }
                #expect(error?.kind == .responseTooLarge)
            }
        }
    }

    @Test("a streamed request is validated at its head before the reader sees it")
    func streamValidatesTheHead() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let read = NIOLockedValueBox(false)
                let error = await courierError {
                    _ = try await client.stream(CourierRequest<Void>(path: "/status/404")) { _ in read.withLockedValue { $0 = true } }
                }
                #expect(error?.kind == .validationFailed)
                #expect(error?.response?.status == 404)
                #expect(read.withLockedValue { $0 } == false)
            }
        }
    }

    @Test("an interceptor that answers itself has its response handed to the stream reader whole")
    func interceptorAnswerReachesTheReader() async throws {
        try await withClient(nil, configure: { $0.interceptors = [AnsweringInterceptor()] }) { client in
            let text = try await client.stream(CourierRequest<Void>(path: "http://127.0.0.1:9/nowhere")) { response in
                String(decoding: try await response.body.collect(upTo: 100), as: UTF8.self)
            }
            #expect(text == "stubbed")
        }
    }

    @Test("a request's redirect policy overrides the client's, both ways")
    func perRequestRedirectPolicy() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var stay = CourierRequest<CourierResponse>(path: "/redirect/2")
                stay.redirectPolicy = RedirectPolicy.none
                stay.validators = []
                let response = try await client.send(stay)
                #expect(response.status == 302)
                #expect(try await client.send(CourierRequest<CourierResponse>(path: "/redirect/2")).status == 200)
            }
            try await withClient(server, configure: { $0.redirectPolicy = .none }) { client in
                var follow = CourierRequest<CourierResponse>(path: "/redirect/2")
                follow.redirectPolicy = .follow(maximum: 5)
                let response = try await client.send(follow)
                #expect(response.status == 200)
                #expect(response.redirects.count == 2)
                let error = await courierError { _ = try await client.send(CourierRequest<CourierResponse>(path: "/redirect/2")) }
                #expect(error?.response?.status == 302)
            }
        }
    }

    @Test("CourierRequest.map keeps every field")
    func mapKeepsEveryField() throws {
        var request = CourierRequest<Data>(method: .put, path: "/x")
        request.usesCDN = true
        request.query = [URLQueryItem(name: "q", value: "1")]
        request.parameters = ["a": 1]
        request.parameterEncoding = .query
        request.headers = ["X-Id": "7"]
        request.body = .text("hi")
        request.timeout = .seconds(7)
        request.connection = ConnectionOverrides(connectTimeout: .seconds(3))
        request.priority = .high
        request.cachePolicy = .reload
        request.appCachePolicy = AppCachePolicy(version: 2)
        request.validators = [.statusCode(200..<201), .statusCode([204])]
        request.sensitiveHeaders = ["X-Secret"]
        request.maximumBodySize = 1_000
        request.retryPolicy = .retries(2)
        request.credential = .bearer("token")
        request.redirectPolicy = .follow(maximum: 3)
        request.tag = 9
        request.userInfo = ["k": "v"]
        request.allowsCoalescing = false
        request.uploadProgress = { _ in }
        let mapped = request.map { response, _ in response.status }

        // Field by field, through reflection, so that a field added to CourierRequest and not
        // copied by `map` fails here; the first loop makes sure this test sets every field.
        let untouched = Dictionary(uniqueKeysWithValues: Mirror(reflecting: CourierRequest<Data>(method: .put, path: "/x")).children.map { ($0.label ?? "", String(reflecting: $0.value)) })
        let copied = Dictionary(uniqueKeysWithValues: Mirror(reflecting: mapped).children.map { ($0.label ?? "", String(reflecting: $0.value)) })
        let fields = Mirror(reflecting: request).children.filter { !["decode", "method", "path"].contains($0.label) }
        #expect(fields.count == 21)
        for field in fields {
            let label = try #require(field.label)
            #expect(String(reflecting: field.value) != untouched[label], "the test leaves \(label) as it was")
            #expect(copied[label] == String(reflecting: field.value), "map does not keep \(label)")
        }
        #expect(mapped.method == .put)
        #expect(mapped.path == "/x")
    }
}

@Suite("Per-request credentials")
struct PerRequestCredentialTests {
    @Test("a request's credential is used instead of the client's, and only for that request")
    func requestCredentialWins() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.authentication = Authentication(.password(user: "ada", password: "wrong")) }) { client in
                var request = CourierRequest<CourierResponse>(path: "/digest-auth/auth/ada/right/SHA-256")
                request.credential = .password(user: "ada", password: "right")
                let answered = try await client.send(request)
                #expect(answered.status == 200)
                let error = await courierError { _ = try await client.send(CourierRequest<CourierResponse>(path: "/digest-auth/auth/ada/right/SHA-256")) }
                #expect(error?.kind == .authenticationFailed)
            }
        }
    }

    @Test("identical requests with different credentials of their own never share an exchange")
    func credentialsKeepFlightsApart() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let outcomes = await withTaskGroup(of: (String, String).self) { group in
                    for token in ["a", "b", "a", "b"] {
                        group.addTask {
                            var request = CourierRequest<CourierResponse>(path: "/bearer?token=a")
                            request.credential = .bearer(token)
                            do {
                                return (token, "\(try await client.send(request).status)")
                            } catch let error as CourierError {
                                return (token, error.kind.description)
                            } catch {
                                return (token, "\(error)")
                            }
                        }
                    }
                    return await group.reduce(into: [(String, String)]()) { $0.append($1) }
                }
                #expect(outcomes.filter { $0.0 == "a" }.map(\.1) == ["200", "200"])
                #expect(outcomes.filter { $0.0 == "b" }.map(\.1) == ["authenticationFailed", "authenticationFailed"])
                #expect(server.receivedRequests.count == 4)
            }
        }
    }

    @Test("a request's credential is not sent to another origin after a redirect")
    func requestCredentialStaysOnItsOrigin() async throws {
        try await withTwoServers { first, second in
            try await withClient(first) { client in
                let away = second.url("/get").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                var request = CourierRequest<CourierResponse>(path: "/redirect-to?url=\(away)")
                request.credential = .password(user: "ada", password: "pw", preemptive: true)
                _ = try await client.send(request)
                #expect(first.receivedRequests.first?.header("Authorization") != nil)
                #expect(second.receivedRequests.allSatisfy { $0.header("Authorization") == nil })
            }
        }
    }
}

@Suite("Per-request credentials and the durable queue")
struct PerRequestCredentialQueueTests {
    @Test("a durable request with a credential of its own is refused, so that nothing secret is stored")
    func durableRequestRefusesItsOwnCredential() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-queue-credential-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withClient(nil) { client in
            var configuration = QueueConfiguration(path: folder.appendingPathComponent("queue.sqlite").path)
            configuration.deliversOnOpen = false
            let queue = try await client.openQueue(configuration)
            var request = CourierRequest<Void>(method: .post, path: "http://127.0.0.1:9/notes")
            request.credential = .bearer("secret-token")
            let error = await courierError { _ = try await queue.enqueue(request) }
            #expect(error?.kind == .invalidBody)
            #expect(try await queue.records().isEmpty)
            await queue.close()
        }
    }
}

@Suite("CourierClient.stream cancellation")
struct StreamCancellationTests {
    @Test("cancelling the reader's task ends a streamed request with a typed error and closes its connection")
    func cancellingClosesTheConnection() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let firstPiece = AsyncStream<Void>.makeStream()
                let task = Task {
                    try await client.stream(CourierRequest<Void>(path: "/drip?numbytes=20&duration=20")) { response in
                        var iterator = response.body.makeAsyncIterator()
                        _ = try await iterator.next()
                        firstPiece.continuation.yield()
                        while try await iterator.next() != nil {}
                    }
                }
                for await _ in firstPiece.stream { break }
                task.cancel()
                let error = await courierError { try await task.value }
                #expect(error?.kind == .cancelled)
                // The server sees its connection closed rather than drained to the end.
                for _ in 0..<500 where server.openConnections > 0 { try await Task.sleep(for: .milliseconds(10)) }
                #expect(server.openConnections == 0)
            }
        }
    }
}
