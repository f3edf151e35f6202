import Courier
import CourierTesting
import Foundation
import InMemoryLogging
import Logging
import Testing

/// The authentication stage never puts a secret in a log line: not the password, not a Digest
/// response, not a token, not a Basic credential.
@Suite("Authentication secrets and the logs")
struct AuthenticationLoggingTests {
    @Test func noSecretReachesAnyLogLine() async throws {
        let (logger, handler) = traceLogger()
        let provider = CountingTokenProvider(initial: "expired-token-0xdead", refreshed: "fresh/token+0xbeef")
        var secrets = ["pa55 w0rd secret", "expired-token-0xdead", "fresh/token+0xbeef"]
        try await withTwoServers { server, bearerServer in
            try await withClient(
                server,
                configure: {
                    $0.interceptors = [LoggingInterceptor(logger: logger, level: .trace)]
                    $0.logger = logger
                    $0.authentication = Authentication(.password(user: "ada", password: "pa55 w0rd secret"))
                    $0.authentication.add(.bearer(provider), for: .origin(bearerServer.baseURL))
                }
            ) { client in
                // The test routes take the expected password in their path, where the log shows
                // it percent-encoded ("pa55%20w0rd%20secret"); the password itself must never appear.
                for algorithm in ["MD5", "SHA-256-sess"] {
                    var request = CourierRequest<CourierResponse>(method: .post, path: "/digest-auth/auth-int/ada/pa55%20w0rd%20secret/\(algorithm)")
                    request.body = .text("body")
                    _ = try await client.send(request)
                }
                _ = try await client.send(CourierRequest<CourierResponse>(path: "/basic-auth/ada/pa55%20w0rd%20secret"))
                var bearer = CourierRequest<CourierResponse>(path: bearerServer.url("/bearer").absoluteString)
                bearer.query = [URLQueryItem(name: "token", value: "fresh/token+0xbeef")]  // logged as fresh%2Ftoken%2B0xbeef
                _ = try await client.send(bearer)
                var wrong = CourierRequest<CourierResponse>(path: "/basic-auth/ada/other")
                wrong.validators = []
                _ = await courierError { _ = try await client.send(wrong) }
            }
            // Every credential that went on the wire, in full and by its secret part.
            for field in (server.receivedRequests + bearerServer.receivedRequests).compactMap({ $0.header("Authorization") }) {
                secrets.append(field)
                if let response = field.components(separatedBy: "response=\"").dropFirst().first {
                    secrets.append(String(response.prefix { $0 != "\"" }))
                }
                if field.hasPrefix("Basic ") { secrets.append(String(field.dropFirst(6))) }
            }
        }
        #expect(secrets.count > 10)
        #expect(provider.refreshes == 1)
        let lines = handler.entries.map { "\($0.message) \($0.metadata)" }
        #expect(lines.contains { $0.contains("answering an authentication challenge") })
        #expect(lines.contains { $0.contains("bearer token refreshed") })
        for line in lines {
            for secret in secrets {
                #expect(!line.contains(secret), "a secret reached the log: \(line)")
            }
        }
    }
}
