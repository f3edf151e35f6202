import Courier
import CourierTesting
import Foundation
import InMemoryLogging
import Logging
import NIOConcurrencyHelpers
import Testing

/// No secret reaches a log line: not credentials, cookies (sent or set), the proxy's
/// credentials, or a header the configuration marks sensitive; not in Courier's lines, not in
/// the transport's.
@Suite("Secrets and the logs")
struct SecretRedactionTests {
    @Test func noSecretReachesAnyLogLine() async throws {
        let (logger, handler) = traceLogger()
        let proxyPassword = "pr0xy/pa55+word"
        let cookieValue = "c00kie+s3cret/value"
        let apiKey = "key-s3cret-4242"
        let password = "us3r+pa55/word"
        var secrets = [proxyPassword, cookieValue, apiKey, password]
        let observed = ObservedExchanges()
        try await withProxy(credentials: .init(user: "proxy-user", password: proxyPassword)) { server, proxy in
            try await withClient(
                server,
                configure: {
                    $0.logger = logger
                    $0.interceptors = [LoggingInterceptor(logger: logger, level: .trace)]
                    $0.cookies = CookieJar()
                    $0.proxy = Proxy(host: "127.0.0.1", port: proxy.port, user: "proxy-user", password: proxyPassword)
                    $0.sensitiveHeaders = ["X-Api-Key"]
                    $0.authentication = Authentication(.password(user: "ada", password: password))
                    $0.observers = [observed]
                }
            ) { client in
                // The values travel percent-encoded in the URLs, which are logged; the
                // decoded secrets must not appear anywhere.
                _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/cookies/set?session=\(queryEncoded(cookieValue))"))
                var keyed = CourierRequest<CourierResponse>(path: "/headers")
                keyed.headers.add(name: "X-Api-Key", value: apiKey)
                _ = try await client.response(for: keyed)
                _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/basic-auth/ada/\(queryEncoded(password))"))
                _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/digest-auth/auth/ada/\(queryEncoded(password))/SHA-256"))
            }
            for request in server.receivedRequests {
                secrets += request.headerValues("Authorization") + request.headerValues("Cookie")
            }
            for head in proxy.receivedRequests {
                secrets += head.headerValues("Proxy-Authorization")
            }
            #expect(server.receivedRequests.contains { $0.header("Cookie") == "session=\(cookieValue)" })
            #expect(server.receivedRequests.contains { $0.header("X-Api-Key") == apiKey })
        }
        secrets.append(Data("ada:\(password)".utf8).base64EncodedString())
        secrets.append(Data("proxy-user:\(proxyPassword)".utf8).base64EncodedString())
        let lines = handler.entries.map { "\($0.message) \($0.metadata)" } + observed.lines
        #expect(lines.contains { $0.contains("<redacted>") })
        #expect(lines.contains { $0.hasPrefix("received") && $0.contains("Set-Cookie") })
        for line in lines {
            for secret in Set(secrets) {
                #expect(!line.contains(secret), "a secret reached the log: \(line)")
            }
        }
    }
}

/// A logger that keeps every line, at trace level, and the handler to read them from.
func traceLogger() -> (Logger, InMemoryLogHandler) {
    var handler = InMemoryLogHandler()
    handler.logLevel = .trace
    return (Logger(label: "test", factory: { [handler] _ in handler }), handler)
}

/// Keeps every exchange as an observer would show it: redacted headers, one line per message.
final class ObservedExchanges: RequestObserver, Sendable {
    private let storage = NIOLockedValueBox<[String]>([])

    var lines: [String] { storage.withLockedValue { $0 } }

    func exchangeWillSend(_ event: ExchangeEvent) {
        storage.withLockedValue { $0.append("will send \(event.request.url) \(event.redactedRequestHeaders.pairs)") }
    }

    func exchangeDidReceive(_ event: ExchangeEvent) {
        storage.withLockedValue { $0.append("received \(event.status ?? 0) \(event.redactedResponseHeaders.pairs)") }
    }
}
