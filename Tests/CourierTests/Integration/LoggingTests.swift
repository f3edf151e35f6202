import Courier
import CourierTesting
import Foundation
import InMemoryLogging
import Logging
import Testing

@Suite("Logging")
struct LoggingTests {
    static let secrets = ["Basic c2VjcmV0OnB3", "session=topsecret", "Bearer proxy-secret", "api-key-secret"]

    @Test func secretsNeverReachTheLogs() async throws {
        let (logger, handler) = traceLogger()
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.interceptors = [LoggingInterceptor(logger: logger)]
                    $0.logger = logger
                }
            ) { client in
                var request = CourierRequest<Echo>(path: "/get")
                request.headers = [
                    "Authorization": Self.secrets[0], "Cookie": Self.secrets[1],
                    "Proxy-Authorization": Self.secrets[2], "X-Api-Key": Self.secrets[3], "X-Visible": "shown",
                ]
                request.sensitiveHeaders = ["X-Api-Key"]
                _ = try await client.send(request)
                _ = await courierError { try await client.send(CourierRequest<Void>(path: "/status/500")) }
            }
        }
        let lines = handler.entries.map { "\($0.message) \($0.metadata)" }
        #expect(lines.contains { $0.contains("X-Visible") && $0.contains("shown") }, "headers were not logged at all")
        #expect(lines.contains { $0.contains("<redacted>") })
        for line in lines {
            for secret in Self.secrets {
                #expect(!line.contains(secret), "a secret reached the log: \(line)")
            }
        }
        #expect(handler.entries.contains { $0.metadata["courier.status"] == "200" })
    }

    @Test func silentByDefault() async throws {
        // A client without a logger must not fail or print; the default logger drops everything.
        let configuration = ClientConfiguration()
        #expect(configuration.logger.logLevel == .critical)
    }
}
