import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The samples of the Authentication article, compiled and run against the test server (its
/// routes stand in for api.example.com and files.example.com).
@Suite("Authentication article samples")
struct AuthenticationSamplesTests {
    /// The article's token provider, as written there.
    actor Session: TokenProvider {
        private var current: String
        private let signIn: @Sendable () async throws -> String

        init(token: String, signIn: @escaping @Sendable () async throws -> String) {
            self.current = token
            self.signIn = signIn
        }

        func token() async throws -> String { current }

        func refreshedToken(replacing rejected: String) async throws -> String? {
            current = try await signIn()
            return current
        }
    }

    @Test func givingAClientCredentials() async throws {
        try await withTwoServers { api, files in
            var configuration = ClientConfiguration(baseURL: api.url("/digest-auth/auth/ada/s3cret"))
            configuration.authentication = Authentication(.password(user: "ada", password: "s3cret"))
            configuration.authentication.add(
                .bearer("files-token"),
                for: .origin(files.url("/"))
            )
            try await CourierClient.withClient(configuration: configuration) { client in
                let profile = try await client.send(CourierRequest<CourierResponse>(path: "/SHA-256"))
                #expect(profile.status == 200)
                let file = try await client.send(CourierRequest<CourierResponse>(path: files.url("/bearer?token=files-token").absoluteString))
                #expect(file.status == 200)
            }
        }
    }

    @Test func whenCredentialsAreRefused() async throws {
        try await withServer { server in
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configuration.authentication = Authentication(.password(user: "ada", password: "typo"))
            try await CourierClient.withClient(configuration: configuration) { client in
                var status = 0
                do {
                    _ = try await client.send(CourierRequest<CourierResponse>(path: "/basic-auth/ada/s3cret"))
                } catch let error as CourierError where error.kind == .authenticationFailed {
                    status = error.response?.status ?? 0  // 401: ask the user for the password again
                }
                #expect(status == 401)
            }
        }
    }

    @Test func bearerTokensThatExpire() async throws {
        let signIns = NIOLockedValueBox(0)
        let signIn: @Sendable () async throws -> String = {
            signIns.withLockedValue { $0 += 1 }
            return "fresh"
        }
        let savedToken = "expired"
        try await withServer { server in
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configuration.authentication = Authentication(.bearer(Session(token: savedToken, signIn: signIn)))
            try await CourierClient.withClient(configuration: configuration) { client in
                for _ in 0..<3 {
                    _ = try await client.send(CourierRequest<CourierResponse>(path: "/bearer?token=fresh"))
                }
            }
            #expect(signIns.withLockedValue { $0 } == 1)
            #expect(server.receivedRequests.map { $0.header("Authorization") } == ["Bearer expired", "Bearer fresh", "Bearer fresh", "Bearer fresh"])
        }
    }
}
