import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import CourierURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What ``CourierURLSessionTransport`` does itself, whichever transport the rest of the suite uses:
/// what it refuses, what it leaves to Courier, and how it bounds a body.
@Suite("CourierURLSessionTransport")
struct CourierURLSessionTransportTests {
    private func withSessionClient<T>(
        _ server: TestServer,
        configure: (inout ClientConfiguration) -> Void = { _ in },
        _ body: (CourierClient) async throws -> T
    ) async throws -> T {
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configure(&configuration)
        return try await CourierClient.withClient(configuration: configuration, transport: try CourierURLSessionTransport(configuration: configuration), body)
    }

    private func refusal(_ configure: (inout ClientConfiguration) -> Void) -> CourierError? {
        var configuration = ClientConfiguration()
        configure(&configuration)
        do {
            _ = try CourierURLSessionTransport(configuration: configuration)
            return nil
        } catch {
            return error
        }
    }

    @Test func trustSettingsItCannotApplyAreRefused() throws {
        let authority = try TestCertificates.authority()
        let error = refusal { $0.tls = TLSPolicy(trustRoots: .only([.bytes(authority.certificateDER)])) }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.message.contains("ClientConfiguration.tls") == true)
        let pin = try Pin("sha256/" + Data(repeating: 7, count: 32).base64EncodedString())
        let pinned = refusal { $0.tls.pins = [HostPins(host: "example.com", pins: [pin])] }
        #expect(pinned?.kind == .invalidConfiguration)
    }

    @Test func aProxyIsRefused() {
        let error = refusal { $0.proxy = Proxy(host: "127.0.0.1", port: 3128) }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.message.contains("proxy") == true)
        let environment = refusal { $0.proxyEnvironment = ProxyEnvironment(["https_proxy": "http://127.0.0.1:3128"]) }
        #expect(environment?.kind == .invalidConfiguration)
        #expect(environment?.message.contains("ClientConfiguration.proxyEnvironment") == true)
    }

    #if canImport(FoundationNetworking)
    @Test(arguments: [MinimumTLSVersion.tls13, .insecureTLS11, .insecureTLS10])
    func aTLSFloorLibcurlWouldNotKeepIsRefused(version: MinimumTLSVersion) {
        let error = refusal { $0.tls.minimumVersion = version }
        #expect(error?.kind == .invalidConfiguration)
    }
    #endif

    @Test func courierFollowsTheRedirectAndTheCredentialStaysAtItsOrigin() async throws {
        try await withTwoServers { first, second in
            try await withSessionClient(first) { client in
                var request = CourierRequest<Data>(path: "/redirect-to")
                request.query = [URLQueryItem(name: "url", value: second.url("/headers").absoluteString)]
                request.headers.set(name: "Authorization", value: "Bearer secret")
                let response = try await client.response(for: request)
                #expect(response.status == 200)
                #expect(response.redirects.count == 1)
                #expect(response.url.port == second.port)
            }
            #expect(first.receivedRequests.count == 1)
            let hop = try #require(second.receivedRequests.last)
            #expect(hop.headers.contains { $0.name.lowercased() == "authorization" } == false)
        }
    }

    @Test func aRedirectIsDeliveredWhenThePolicyFollowsNone() async throws {
        try await withServer { server in
            try await withSessionClient(server, configure: { $0.redirectPolicy = .none }) { client in
                // The default validator refuses a 3xx; the response it refuses is the redirect.
                let error = await courierError { _ = try await client.response(for: CourierRequest<Data>(path: "/redirect/2")) }
                #expect(error?.response?.status == 302)
                #expect(error?.response?.headers["Location"] != nil)
            }
            #expect(server.receivedRequests.count == 1)
        }
    }

    @Test func theSessionKeepsNoCookiesOfItsOwn() async throws {
        try await withServer { server in
            try await withSessionClient(server) { client in
                var setting = CourierRequest<Data>(path: "/cookies/set")
                setting.query = [URLQueryItem(name: "flavour", value: "oat")]
                _ = try await client.response(for: setting)
                _ = try await client.response(for: CourierRequest<Data>(path: "/cookies"))
            }
            let cookieHeaders = server.receivedRequests.flatMap(\.headers).filter { $0.name.lowercased() == "cookie" }
            #expect(cookieHeaders.isEmpty)
            #expect(server.receivedRequests.count == 3)
        }
    }

    @Test func aStreamedBodyGoesOutWholeAndInOrder() async throws {
        let pieces = (0..<48).map { index in Data(repeating: UInt8(index), count: 64 * 1024) }
        var expected = CRC32()
        for piece in pieces { piece.withUnsafeBytes { expected.update(with: $0) } }
        let length = Int64(pieces.reduce(0) { $0 + $1.count })
        try await withServer { server in
            try await withSessionClient(server) { client in
                var request = CourierRequest<JSONValue>(method: .post, path: "/sink")
                request.body = .stream(length: length) {
                    AsyncThrowingStream { continuation in
                        for piece in pieces { continuation.yield(piece) }
                        continuation.finish()
                    }
                }
                let answer = try await client.send(request)
                #expect(answer["bytes"] == .integer(Int(length)))
                #expect(answer["crc32"] == .integer(Int(expected.value)))
            }
        }
    }

    @Test func aBodyThatFailsWhileSentFailsTheRequestWithItsOwnError() async throws {
        try await withServer { server in
            try await withSessionClient(server) { client in
                var request = CourierRequest<Data>(method: .post, path: "/sink")
                request.body = .stream(length: nil) {
                    AsyncThrowingStream { continuation in
                        continuation.yield(Data(repeating: 1, count: 1024))
                        continuation.finish(throwing: CourierError(.invalidBody, "the file changed"))
                    }
                }
                let error = await courierError { _ = try await client.send(request) }
                #expect(error?.kind == .invalidBody)
            }
        }
    }

    @Test func aLargeBodyArrivesWhole() async throws {
        try await withServer { server in
            try await withSessionClient(server) { client in
                let received = try await client.stream(CourierRequest<Data>(path: "/stream-bytes/6000000")) { response in
                    var count = 0
                    for try await piece in response.body { count += piece.count }
                    return count
                }
                #expect(received == 6_000_000)
            }
        }
    }

    @Test func theTotalTimeoutEndsAStalledExchange() async throws {
        try await withServer { server in
            try await withSessionClient(server) { client in
                var request = CourierRequest<Data>(path: "/gate/silent")  // answered only when the server stops
                request.timeout = .milliseconds(200)
                let error = await courierError { _ = try await client.send(request) }
                #expect(error?.kind == .timeout)
            }
        }
    }

    @Test func aHostThatRefusesIsAConnectionFailureBeforeAnythingWasSent() async throws {
        let reserved = try ReservedPort()
        var configuration = ClientConfiguration(baseURL: URL(string: "http://127.0.0.1:\(reserved.port)"))
        configuration.retryPolicy = .none
        let client = CourierClient(configuration: configuration, transport: try CourierURLSessionTransport(configuration: configuration), ownsTransport: true)
        let error = await courierError { _ = try await client.send(CourierRequest<Data>(method: .post, path: "/get")) }
        try await client.shutdown()
        #expect(error?.kind == .connectionFailed)
        #expect(error?.requestMayHaveBeenSent == false)
    }

    @Test(arguments: [
        ("a=1; Path=/", ["a=1; Path=/"]),
        ("a=1; Path=/, b=two; Path=/", ["a=1; Path=/", "b=two; Path=/"]),
        ("id=7; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Secure, theme=dark", ["id=7; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Secure", "theme=dark"]),
        ("a=x,y; Path=/", ["a=x,y; Path=/"]),
        ("", []),
    ])
    func joinedSetCookieFieldsAreSplitPerCookie(joined: String, cookies: [String]) {
        #expect(SetCookieSplitter.split(joined) == cookies)
    }

    @Test(arguments: [0, 99, 100, 102, 103, 1000])
    func aHeadThatIsNotAReadableFinalResponseIsMalformed(status: Int) {
        let error = CourierURLSessionTransport.refusal(ofStatus: status, url: URL(string: "http://127.0.0.1/")!)
        #expect(error?.kind == .malformedResponse)
    }

    @Test(arguments: [101, 200, 204, 304, 404, 599, 600, 999])
    func aFinalStatusIsAccepted(status: Int) {
        #expect(CourierURLSessionTransport.refusal(ofStatus: status, url: URL(string: "http://127.0.0.1/")!) == nil)
    }

    @Test func courierAsksURLSessionForTheBodyAsItIs() async throws {
        try await withServer { server in
            try await withSessionClient(server) { client in
                let echo = try await client.send(CourierRequest<Echo>(path: "/get"))
                #expect(echo.header("Accept-Encoding") == "identity")

                var own = CourierRequest<Echo>(path: "/get")
                own.headers.set(name: "Accept-Encoding", value: "br")
                #expect(try await client.send(own).header("Accept-Encoding") == "br")
            }
        }
    }

    @Test func aDroppedBodyIsAConnectionFailureThatADownloadResumesFrom() async throws {
        try await withServer { server in
            try await withSessionClient(server) { client in
                // Streamed, the reader sees the body end early.
                let error = await courierError {
                    _ = try await client.stream(CourierRequest<Data>(path: "/range/200000?seed=1&drops=1&drop_at=50000")) { response in
                        try await response.body.collect(upTo: 1 << 20)
                    }
                }
                #expect(error?.kind == .connectionFailed)
                #expect(error?.connectionFailure == .cutShort)
            }
        }
    }

    @Test func aCollectedGETCutShortIsNotSentAgainWithoutARetryPolicy() async throws {
        try await withServer { server in
            try await withSessionClient(server) { client in
                // Collected, the response had begun before the failure: it is a body cut
                // short, not a stale connection, so only a retry policy sends it again.
                let error = await courierError { _ = try await client.send(CourierRequest<Data>(path: "/range/200000?seed=1&drops=1&drop_at=50000")) }
                #expect(error?.kind == .connectionFailed)
                #expect(error?.connectionFailure == .cutShort)
            }
            #expect(server.receivedRequests.count == 1)
        }
    }

    @Test func aCollectedBodyPastTheLimitIsRefused() async throws {
        try await withServer { server in
            try await withSessionClient(server) { client in
                var request = CourierRequest<Data>(path: "/stream-bytes/300000")
                request.maximumBodySize = 100_000
                let error = await courierError { _ = try await client.send(request) }
                #expect(error?.kind == .responseTooLarge)
            }
        }
    }

    // MARK: The exchange's bounds, driven directly

    private func head(_ fields: [String: String]) throws -> HTTPURLResponse {
        try #require(HTTPURLResponse(url: URL(string: "http://127.0.0.1/")!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields))
    }

    @Test func aReaderThatFallsTooFarBehindEndsTheExchangeWithATypedError() async throws {
        let limits = SessionLimits(decompression: .disabled, pauseThreshold: .max, maximumBufferedBytes: 100_000)
        let exchange = SessionExchange(url: URL(string: "http://127.0.0.1/")!, method: "GET", limits: limits)
        exchange.receive(try head([:]))
        #expect(exchange.receive(Data(count: 60_000)) == .proceed)
        #expect(exchange.receive(Data(count: 60_000)) == .stop)
        let first = await #expect(throws: CourierError.self) { _ = try await exchange.next {} }
        #expect(first?.kind == .transport)
        // The exchange stays ended: a second read fails the same way.
        let second = await #expect(throws: CourierError.self) { _ = try await exchange.next {} }
        #expect(second?.kind == .transport)
        // A callback after the end changes nothing.
        #expect(exchange.receive(Data(count: 10)) == .proceed)
    }

    @Test func aReaderThatKeepsUpIsNeverStopped() async throws {
        let limits = SessionLimits(decompression: .disabled, pauseThreshold: .max, maximumBufferedBytes: 100_000)
        let exchange = SessionExchange(url: URL(string: "http://127.0.0.1/")!, method: "GET", limits: limits)
        exchange.receive(try head([:]))
        var total = 0
        for _ in 0..<20 {
            #expect(exchange.receive(Data(count: 60_000)) == .proceed)
            total += try await exchange.next {}?.count ?? 0
        }
        exchange.complete(nil)
        #expect(try await exchange.next {} == nil)
        #expect(total == 1_200_000)
    }

    @Test func aCompressedBodyPastItsRatioIsRefused() async throws {
        let limits = SessionLimits(decompression: .enabled(maximumRatio: 100), pauseThreshold: .max, maximumBufferedBytes: .max)
        let exchange = SessionExchange(url: URL(string: "http://127.0.0.1/")!, method: "GET", limits: limits)
        exchange.receive(try head(["Content-Encoding": "gzip", "Content-Length": "1000"]))
        #expect(exchange.receive(Data(count: 90_000)) == .proceed)
        #expect(exchange.receive(Data(count: 20_000)) == .stop)
        do {
            _ = try await exchange.next {}
            Issue.record("the body past its ratio was delivered")
        } catch let error as CourierError {
            #expect(error.kind == .decompressionLimitExceeded)
        }
    }

    @Test func aPausedTaskIsResumedOnceItsReaderTakesThePendingBody() async throws {
        let limits = SessionLimits(decompression: .disabled, pauseThreshold: 1000, maximumBufferedBytes: .max)
        let exchange = SessionExchange(url: URL(string: "http://127.0.0.1/")!, method: "GET", limits: limits)
        exchange.receive(try head([:]))
        #expect(exchange.receive(Data(count: 600)) == .proceed)
        #expect(exchange.receive(Data(count: 600)) == .pause)
        let resumed = Counter()
        #expect(try await exchange.next { resumed.increment() }?.count == 1200)
        #expect(resumed.value == 1)
        #expect(exchange.receive(Data(count: 600)) == .proceed)
    }
}

/// Counts calls from any thread.
private final class Counter: Sendable {
    private let count = NIOLockedValueBox(0)
    func increment() { count.withLockedValue { $0 += 1 } }
    var value: Int { count.withLockedValue { $0 } }
}
