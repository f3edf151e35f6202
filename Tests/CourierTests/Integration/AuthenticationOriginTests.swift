import Courier
import CourierTesting
import Foundation
import Testing

/// Credentials go only to the origin they were configured for, redirects included.
@Suite("Authentication stays within its origin")
struct AuthenticationOriginTests {
    static func unvalidated(_ url: URL) -> CourierRequest<CourierResponse> {
        var request = CourierRequest<CourierResponse>(path: url.absoluteString)
        request.validators = []
        return request
    }

    /// `server`'s `/redirect-to` with `target` as its (percent-encoded) `url` argument.
    static func redirect(on server: TestServer, to target: String) -> CourierRequest<CourierResponse> {
        var request = unvalidated(server.url("/redirect-to"))
        request.query = [URLQueryItem(name: "url", value: target)]
        return request
    }

    @Test func noCredentialsForAnotherOriginAfterARedirect() async throws {
        let provider = CountingTokenProvider(initial: "token-a", refreshed: "token-a2")
        try await withTwoServers { first, second in
            try await withClient(
                first,
                configure: {
                    $0.authentication = Authentication(.password(user: "ada", password: "pw", preemptive: true))
                }
            ) { client in
                // A redirect to another origin that challenges: nothing is sent, nothing answered.
                let target = second.url("/basic-auth/ada/pw").absoluteString
                let response = try await client.send(Self.redirect(on: first, to: target))
                #expect(response.status == 401)
                #expect(response.request?.headers["Authorization"] == nil)
                #expect(second.receivedRequests.count == 1)
                #expect(second.receivedRequests.first?.header("Authorization") == nil)
                #expect(first.receivedRequests.first?.header("Authorization") == "Basic YWRhOnB3")
            }
            first.clearReceivedRequests()
            try await withClient(first, configure: { $0.authentication = Authentication(.bearer(provider)) }) { client in
                let target = second.url("/bearer?token=token-a").absoluteString
                let response = try await client.send(Self.redirect(on: first, to: target))
                #expect(response.status == 401)
                #expect(second.requests(under: "/bearer").count == 1)
                #expect(second.requests(under: "/bearer").first?.header("Authorization") == nil)
                #expect(first.receivedRequests.first?.header("Authorization") == "Bearer token-a")
            }
            #expect(provider.refreshes == 0)
        }
    }

    @Test func onceAChainLeftItsOriginNoHopGetsCredentials() async throws {
        try await withTwoServers { first, second in
            try await withClient(
                first,
                configure: {
                    $0.authentication = Authentication(.password(user: "ada", password: "pw", preemptive: true))
                    $0.authentication.add(.bearer("second-token"), for: .origin(second.url("/ignored/path")))
                }
            ) { client in
                // first → second (which has credentials of its own) → back to first.
                let back = first.url("/basic-auth/ada/pw").absoluteString
                let hop = second.url("/redirect-to?url=\(back)").absoluteString
                let response = try await client.send(Self.redirect(on: first, to: hop))
                #expect(response.status == 401)
                #expect(response.redirects.count == 2)
                #expect(second.receivedRequests.map { $0.header("Authorization") } == [nil])
                #expect(first.receivedRequests.map { $0.header("Authorization") } == ["Basic YWRhOnB3", nil])
            }
        }
    }

    @Test func aChallengeAfterASameOriginRedirectIsAnswered() async throws {
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.authentication = Authentication(.password(user: "ada", password: "pw"))
                }
            ) { client in
                let response = try await client.send(Self.unvalidated(server.url("/redirect-to?url=/digest-auth/auth/ada/pw/SHA-256")))
                #expect(response.status == 200)
                #expect(response.redirects.count == 1)
                #expect(server.receivedRequests.map(\.path) == ["/redirect-to", "/digest-auth/auth/ada/pw/SHA-256", "/digest-auth/auth/ada/pw/SHA-256"])
                #expect(server.credentialedRequests(under: "/") == 1)
            }
        }
    }

    @Test func credentialsForOneOriginAreNotSentToTheBaseURL() async throws {
        try await withTwoServers { first, second in
            try await withClient(
                first,
                configure: {
                    $0.authentication = Authentication(.password(user: "ada", password: "pw"), for: .origin(second.baseURL))
                }
            ) { client in
                let refused = try await client.send(Self.unvalidated(first.url("/basic-auth/ada/pw")))
                #expect(refused.status == 401)
                #expect(first.receivedRequests.count == 1)
                let accepted = try await client.send(Self.unvalidated(second.url("/basic-auth/ada/pw")))
                #expect(accepted.status == 200)
            }
        }
    }
}
