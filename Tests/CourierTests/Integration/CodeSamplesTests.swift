import Courier
import CourierTesting
import Foundation
import NIOPosix
import Testing

/// The README's and the documentation's samples, compiled and run against the test server
/// (its `/anything` route stands in for api.example.com).
@Suite("Code samples")
struct CodeSamplesTests {
    struct User: Codable, Sendable, Equatable { let id: Int; let name: String }

    /// Decodes the `json` member of the test server's echo, as a real API would return it.
    static func echoed<T: Decodable & Sendable>(_ type: T.Type, path: String) -> CourierRequest<T> {
        CourierRequest<T>(path: path) { response, decoder in
            let json = try response.json()["json"] ?? .null
            return try decoder.decode(T.self, from: Data(json.description.utf8))
        }
    }

    @Test func quickStart() async throws {
        try await TestServer.withServer { server in
            let configuration = ClientConfiguration(baseURL: server.url("/anything/v1"))
            try await CourierClient.withClient(configuration: configuration) { client in
                // POST a JSON body; the response is validated (2xx by default) and decoded
                let user = User(id: 1, name: "Ada")
                var create = Self.echoed(User.self, path: "/users")
                create.method = .post
                create.body = try .json(user)
                let created = try await client.send(create)
                #expect(created == user)

                // Parameters: query for GET/HEAD/DELETE, body for the others
                var search = CourierRequest<CourierResponse>(path: "/users")
                search.parameters = ["q": "ada", "page": 2]
                let found = try await client.send(search)
                #expect(found.url.absoluteString.hasSuffix("/anything/v1/users?page=2&q=ada"))
            }
        }
    }

    @Test func workerOnTheEventLoop() async throws {
        try await TestServer.withServer { server in
            try await CourierClient.withClient(configuration: .init(baseURL: server.url("/anything"))) { client in
                let executor = client.makeTaskExecutor()
                let (paths, onLoop) = try await withTaskExecutorPreference(executor) {
                    var paths: [String] = []
                    var onLoop = true
                    for id in 1...20 {
                        paths.append(try await client.send(CourierRequest<CourierResponse>(path: "/users/\(id)")).url.path)
                        onLoop = onLoop && MultiThreadedEventLoopGroup.currentEventLoop != nil
                    }
                    return (paths, onLoop)
                }
                #expect(paths == (1...20).map { "/anything/users/\($0)" })
                #expect(onLoop, "the worker was resumed off the event loops")
            }
        }
    }

    @Test func typedEndpoint() async throws {
        struct GetUser: CourierEndpoint {
            typealias Value = CourierResponse
            let id: Int
            var path: String { "/users/\(id)" }
        }
        try await TestServer.withServer { server in
            try await CourierClient.withClient(configuration: .init(baseURL: server.url("/anything"))) { client in
                let response = try await client.send(GetUser(id: 1))
                #expect(response.url.path == "/anything/users/1")
            }
        }
    }

    @Test func matchingErrorsByKind() async throws {
        try await TestServer.withServer { server in
            try await CourierClient.withClient(configuration: .init(baseURL: server.baseURL)) { client in
                var status = 0
                do {
                    _ = try await client.send(CourierRequest<User>(path: "/status/404"))
                } catch let error as CourierError where error.kind == .validationFailed {
                    status = error.response?.status ?? 0
                }
                #expect(status == 404)
            }
        }
    }

    /// The "Batches and chains" article's samples; the echo server returns each JSON body.
    @Test func batchAndChainSamples() async throws {
        struct Session: Codable, Sendable { let token: String }
        struct Order: Codable, Sendable, Equatable { let id: Int }
        @Sendable func echoing<T: Codable & Sendable>(_ value: T, path: String) throws -> CourierRequest<T> {
            var request = Self.echoed(T.self, path: path)
            request.method = .post
            request.body = try .json(value)
            return request
        }
        try await TestServer.withServer { server in
            try await CourierClient.withClient(configuration: .init(baseURL: server.url("/anything"))) { client in
                var batch = Batch(mode: .failFast, maximumConcurrency: 4)
                let user = batch.add(try echoing(User(id: 1, name: "Ada"), path: "/users/1"))
                let avatar = batch.add(CourierRequest<Data>(path: "/users/1/avatar"))
                let results = try await client.run(batch)
                let name = try results.value(for: user).name
                let bytes = try results.value(for: avatar)
                #expect(name == "Ada" && !bytes.isEmpty)

                var many = Batch(mode: .settle, maximumConcurrency: 16)
                let pages = many.add(count: 40) { CourierRequest<Data>(path: "/pages/\($0)") }
                let pageResults = try await client.run(many)
                let first = try pageResults.value(for: pages[0])
                #expect(String(decoding: first, as: UTF8.self).contains("/anything/pages/0"))

                let chain = Chain { history in
                    switch history.count {
                    case 0:
                        return .send(try echoing(Session(token: "t1"), path: "/login"))
                    case 1:
                        let session: Session = try history[0].value()
                        var orders = try echoing([Order(id: 7)], path: "/orders")
                        orders.headers.add(name: "Authorization", value: "Bearer \(session.token)")
                        return .send(orders)
                    default:
                        return .stop
                    }
                }
                let history = try await client.run(chain)
                let orders: [Order] = try history[1].value()
                #expect(orders == [Order(id: 7)])
                #expect(server.receivedRequests.last?.headers.contains { $0.name == "Authorization" && $0.value == "Bearer t1" } == true)
            }
        }
    }

    @Test func adaptiveLimits() async throws {
        try await TestServer.withServer { server in
            var configuration = ClientConfiguration(baseURL: server.url("/anything"))
            configuration.limits.maximumConcurrentRequestsPerHost = 8
            configuration.limits.adaptiveConcurrency = AdaptiveConcurrency(initialLimit: 2, minimumLimit: 1)
            let client = CourierClient(configuration: configuration)
            let response = try await client.response(for: CourierRequest<Data>(path: "/users"))
            #expect(response.status == 200)
            #expect(client.configuration.limits.adaptiveConcurrency == AdaptiveConcurrency(initialLimit: 2))
            try await client.shutdown()
        }
    }
}
