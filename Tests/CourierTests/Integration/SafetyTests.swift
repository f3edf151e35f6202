import Courier
import CourierTesting
import Foundation
import Testing

/// Bad input must fail with a typed error before a single byte reaches the server.
@Suite("Injection never reaches the wire")
struct SafetyTests {
    static let poison = ["\r", "\n", "\r\n", "\0"]

    @Test(arguments: poison)
    func controlCharactersInAHeaderValue(poison: String) async throws {
        try await assertRejected(.invalidHeader) { request in
            request.headers.add(name: "X-Note", value: "a\(poison)X-Injected: 1")
        }
    }

    @Test(arguments: poison)
    func controlCharactersInAHeaderName(poison: String) async throws {
        try await assertRejected(.invalidHeader) { request in
            request.headers.add(name: "X-Note\(poison)X-Injected", value: "1")
        }
    }

    @Test(arguments: poison)
    func controlCharactersInTheMethod(poison: String) async throws {
        try await assertRejected(.invalidMethod) { request in
            request.method = CourierHTTPMethod("GET\(poison)")
        }
    }

    @Test(arguments: poison)
    func controlCharactersInThePath(poison: String) async throws {
        try await assertRejected(.invalidURL) { request in
            request.path = "/get\(poison)Host: evil"
        }
    }

    @Test(arguments: poison)
    func controlCharactersAddedByAnInterceptor(poison: String) async throws {
        try await withServer { server in
            let injector = HeaderInjector(["X-From-Interceptor": "v\(poison)X-Injected: 1"])
            try await withClient(server, configure: { $0.interceptors = [injector] }) { client in
                let error = await courierError { try await client.send(CourierRequest<Void>(path: "/get")) }
                #expect(error?.kind == .invalidHeader)
                #expect(server.receivedRequests.isEmpty)
                #expect(server.acceptedConnections == 0)
            }
        }
    }

    @Test func invalidURLsNameTheInput() async throws {
        try await withClient(nil) { client in
            let error = await courierError { try await client.send(CourierRequest<Void>(path: "ftp://example.com/file")) }
            #expect(error?.kind == .invalidURL)
            #expect(error?.message.contains("ftp://example.com/file") == true)
            let relative = await courierError { try await client.send(CourierRequest<Void>(path: "/no-base")) }
            #expect(relative?.kind == .invalidURL)
            #expect(relative?.message.contains("/no-base") == true)
        }
    }

    private func assertRejected(
        _ kind: CourierError.Kind,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ poison: (inout CourierRequest<Void>) -> Void
    ) async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var request = CourierRequest<Void>(path: "/get")
                poison(&request)
                let error = await courierError { try await client.send(request) }
                #expect(error?.kind == kind, sourceLocation: sourceLocation)
                #expect(error?.message.isEmpty == false, sourceLocation: sourceLocation)
                #expect(server.receivedRequests.isEmpty, sourceLocation: sourceLocation)
                #expect(server.acceptedConnections == 0, "a connection was opened", sourceLocation: sourceLocation)
            }
        }
    }
}
