import Courier
import CourierTesting
import Foundation
import Testing

/// Basic authentication, preemptive and on challenge, and bearer tokens with one refresh.
@Suite("Basic and bearer authentication against the in-process server")
struct BasicAndBearerAuthenticationTests {
    @Test func preemptiveBasicSendsCredentialsWithTheFirstRequest() async throws {
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.authentication = Authentication(.password(user: "ada", password: "pw", preemptive: true))
                }
            ) { client in
                _ = try await client.send(CourierRequest<CourierResponse>(path: "/basic-auth/ada/pw"))
                #expect(server.requests(under: "/basic-auth").count == 1)
                #expect(server.receivedRequests.first?.header("Authorization") == "Basic YWRhOnB3")
            }
        }
    }

    @Test func basicOnChallengeThenUpFrontForTheSameOrigin() async throws {
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.authentication = Authentication(.password(user: "ada", password: "pw"))
                }
            ) { client in
                _ = try await client.send(CourierRequest<CourierResponse>(path: "/basic-auth/ada/pw"))
                #expect(server.requests(under: "/basic-auth").map { $0.header("Authorization") } == [nil, "Basic YWRhOnB3"])
                _ = try await client.send(CourierRequest<CourierResponse>(path: "/basic-auth/ada/pw"))
                #expect(server.requests(under: "/basic-auth").count == 3)
                #expect(server.credentialedRequests(under: "/basic-auth") == 2)
            }
        }
    }

    @Test func aWrongBasicPasswordIsSentOnce() async throws {
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.authentication = Authentication(.password(user: "ada", password: "wrong", preemptive: true))
                }
            ) { client in
                let error = await courierError { _ = try await client.send(CourierRequest<CourierResponse>(path: "/basic-auth/ada/pw")) }
                #expect(error?.kind == .authenticationFailed)
                #expect(error?.response?.status == 401)
                #expect(server.credentialedRequests(under: "/basic-auth") == 1)
                #expect(server.requests(under: "/basic-auth").count == 1)
            }
        }
    }

    @Test func aRequestsOwnAuthorizationIsLeftAlone() async throws {
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.authentication = Authentication(.password(user: "ada", password: "pw", preemptive: true))
                }
            ) { client in
                var request = CourierRequest<CourierResponse>(path: "/basic-auth/ada/pw")
                request.headers = ["Authorization": "Basic b3RoZXI6b3RoZXI="]
                request.validators = []
                let response = try await client.send(request)
                #expect(response.status == 401)
                #expect(server.requests(under: "/basic-auth").map { $0.header("Authorization") } == ["Basic b3RoZXI6b3RoZXI="])
            }
        }
    }

    @Test func fiftyConcurrentRefusalsMakeOneRefresh() async throws {
        let provider = CountingTokenProvider(initial: "old", refreshed: "new")
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.authentication = Authentication(.bearer(provider))
                    $0.limits.maximumConcurrentRequestsPerHost = 50
                    // A connection for each, so that no request waits in the connection pool, where a
                    // loaded machine could outlast the connect timeout.
                    $0.limits.maximumConnectionsPerHost = 50
                    // Fifty refusals need fifty exchanges: identical requests would otherwise share one.
                    $0.coalescesRequests = false
                }
            ) { client in
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<50 {
                        group.addTask { try await client.send(CourierRequest<CourierResponse>(path: "/bearer?token=new")).status }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 200, count: 50))
            }
            #expect(provider.refreshes == 1)
            let sent = server.requests(under: "/bearer").map { $0.header("Authorization") }
            #expect(sent.filter { $0 == "Bearer new" }.count == 50)
            #expect(sent.filter { $0 == "Bearer old" }.count >= 1)
            #expect(sent.allSatisfy { $0 == "Bearer new" || $0 == "Bearer old" })
        }
    }

    @Test func aFixedTokenThatIsRefusedFails() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.authentication = Authentication(.bearer("stale-token")) }) { client in
                let error = await courierError { _ = try await client.send(CourierRequest<CourierResponse>(path: "/bearer?token=abc")) }
                #expect(error?.kind == .authenticationFailed)
                #expect(error?.message.contains("no new one") == true)
                #expect(server.requests(under: "/bearer").count == 1)
            }
        }
    }

    @Test func aRefreshedTokenThatIsRefusedFailsWithoutAnotherRefresh() async throws {
        let provider = CountingTokenProvider(initial: "old", refreshed: "also-wrong")
        try await withServer { server in
            try await withClient(server, configure: { $0.authentication = Authentication(.bearer(provider)) }) { client in
                let error = await courierError { _ = try await client.send(CourierRequest<CourierResponse>(path: "/bearer?token=abc")) }
                #expect(error?.kind == .authenticationFailed)
                #expect(error?.response?.status == 401)
            }
            #expect(provider.refreshes == 1)
            #expect(server.requests(under: "/bearer").map { $0.header("Authorization") } == ["Bearer old", "Bearer also-wrong"])
        }
    }
}
