import Courier
import CourierOpenAPI
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The client generated from `openapi.yaml` (in `Generated/`), sending through
/// ``CourierClientTransport`` to the in-process test server.
@Suite("OpenAPI: a generated client through CourierClientTransport")
struct CourierClientTransportTests {
    @Test func pathQueryAndHeadersReachTheServer() async throws {
        try await withGeneratedClient { api, server, _ in
            let echo = try await api.getItem(path: .init(item: "a b"), query: .init(q: "swift & nio")).ok.body.json
            #expect(echo.method == "GET")
            #expect(echo.path == "/anything/a%20b")
            let recorded = try #require(server.receivedRequests.last)
            #expect(recorded.path == "/anything/a%20b")
            #expect(recorded.headers.first { $0.name.lowercased() == "accept" }?.value == "application/json")
            #expect(recorded.headers.first { $0.name.lowercased() == "user-agent" }?.value == ClientConfiguration.defaultUserAgent)
        }
    }

    @Test func aJSONBodyIsSentWithItsLength() async throws {
        try await withGeneratedClient { api, server, _ in
            let note = Components.Schemas.Note(title: "groceries", tags: ["milk", "bread"])
            let echo = try await api.createNote(body: .json(note)).ok.body.json
            #expect(echo.method == "POST")
            #expect(echo.json == note)
            let recorded = try #require(server.receivedRequests.last)
            #expect(recorded.headers.first { $0.name.lowercased() == "content-type" }?.value == "application/json; charset=utf-8")
            #expect(recorded.headers.first { $0.name.lowercased() == "content-length" }?.value == String(recorded.body.count))
        }
    }

    @Test func aStatusOutsideTheSpecIsAnUndocumentedResponseNotAnError() async throws {
        try await withGeneratedClient { api, _, _ in
            let output = try await api.getStatus(path: .init(code: 418))
            guard case .undocumented(let status, _) = output else {
                Issue.record("expected an undocumented response, got \(output)")
                return
            }
            #expect(status == 418)
        }
    }

    @Test func theClientsCredentialsAnswerTheChallenge() async throws {
        try await withGeneratedClient(configure: { $0.authentication = Authentication(.password(user: "ada", password: "lovelace")) }) {
            api, server, _ in
            let login = try await api.checkLogin(path: .init(user: "ada", password: "lovelace")).ok.body.json
            #expect(login == .init(authenticated: true, user: "ada"))
            #expect(server.receivedRequests.count == 2, "the challenge, then the answer")
        }
    }

    @Test func withoutCredentialsTheDocumentedUnauthorizedComesBack() async throws {
        try await withGeneratedClient { api, _, _ in
            let output = try await api.checkLogin(path: .init(user: "ada", password: "lovelace"))
            guard case .unauthorized = output else {
                Issue.record("expected 401, got \(output)")
                return
            }
        }
    }

    @Test func redirectsAreFollowed() async throws {
        try await withGeneratedClient { api, server, _ in
            let echo = try await api.followRedirects(path: .init(count: 2)).ok.body.json
            #expect(echo.path == "/get")
            #expect(server.receivedRequests.count == 3)
        }
    }

    @Test func theRetryPolicyRetriesAFailedGET() async throws {
        try await withGeneratedClient(configure: { $0.retryPolicy = .retries(2) }) { api, server, _ in
            let echo = try await api.getFlaky(query: .init(failures: 2, key: "openapi")).ok.body.json
            #expect(echo.path == "/flaky")
            #expect(server.receivedRequests.count == 3)
        }
    }

    @Test func aFreshCachedResponseIsServedWithoutAskingTheServer() async throws {
        try await withGeneratedClient(configure: { $0.cache = CacheConfiguration() }) { api, server, _ in
            let first = try await api.getCached(path: .init(seconds: 600)).ok.body.json
            let second = try await api.getCached(path: .init(seconds: 600)).ok.body.json
            #expect(first == second)
            #expect(server.receivedRequests.count == 1)
        }
    }

    @Test func aFailureOfCouriersOwnIsTheClientErrorsUnderlyingError() async throws {
        // A port bound but never listened on: the connection is refused.
        let port = try ReservedPort()
        let courier = CourierClient(configuration: ClientConfiguration())
        let api = Client(serverURL: port.url(), transport: CourierClientTransport(courier))
        let error = await #expect(throws: ClientError.self) { _ = try await api.getStatus(path: .init(code: 200)) }
        try await courier.shutdown()
        #expect(error?.operationID == "getStatus")
        #expect((error?.underlyingError as? CourierError)?.kind == .connectionFailed)
    }

    @Test func theServerURLAndThePathAreJoinedOnce() throws {
        let base = URL(string: "https://api.example.com/v1/")!
        #expect(try CourierClientTransport.url(base, "/users/1?x=2").absoluteString == "https://api.example.com/v1/users/1?x=2")
        #expect(try CourierClientTransport.url(URL(string: "https://api.example.com")!, "/").absoluteString == "https://api.example.com/")
        #expect(throws: CourierError.self) { try CourierClientTransport.url(URL(string: "ftp://files.example.com")!, "/a") }
        #expect(throws: CourierError.self) { try CourierClientTransport.url(URL(string: "/relative")!, "/a") }
    }

    /// Runs `body` with a generated client that sends through a Courier client of the given
    /// configuration to a fresh test server, which is also the client's base URL.
    private func withGeneratedClient(
        configure: (inout ClientConfiguration) -> Void = { _ in },
        _ body: (Client, TestServer, CourierClient) async throws -> Void
    ) async throws {
        try await TestServer.withServer { server in
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configure(&configuration)
            let courier = CourierClient(configuration: configuration)
            do {
                try await body(Client(serverURL: server.baseURL, transport: CourierClientTransport(courier)), server, courier)
            } catch {
                try? await courier.shutdown()
                throw error
            }
            try await courier.shutdown()
        }
    }
}
