#if canImport(FoundationNetworking)
import Foundation
import Testing

/// Courier's tests again, every client of the suite's `withClient` on ``CourierURLSessionTransport``
/// (FoundationNetworking): this test runs the test binary itself, filtered to this module, with
/// `COURIER_TEST_TRANSPORT=urlsession`, so that `swift test` checks both transports.
///
/// The tests left out hold for the default transport only. Each is a difference that the
/// CourierURLSession article lists, or a setting CourierURLSessionTransport refuses (custom trust,
/// pins, client certificates, a proxy, a TLS floor), which `CourierURLSessionTransportTests` checks
/// is refused.
@Suite("Courier's tests over CourierURLSessionTransport")
struct URLSessionSuitePassTests {
    /// Suites and tests (test IDs, as regular expressions) that hold for the default transport only.
    static let defaultTransportOnly = [
        // Custom trust, pins, client certificates and TLS floors: refused by CourierURLSessionTransport.
        "ClientCertificateCacheTests", "ClientCertificateTests", "PinningTests", "SecuritySamplesTests", "TLSTrustTests",
        "TLSVersionFloorTests", "VerifiedConnectionTests", "TLSOverHTTP2Tests", "TrailersOnTLSRoadsTests",
        "OwnConnectionsWholeBodyTests", "OwnConnectionsOnALoopTests",
        // A proxy: refused.
        "ProxyIntegrationTests", "ProxyEnvironmentIntegrationTests", "ProxyFailureTests", "SecretRedactionTests", "SOCKSProxyTests",
        "CutShortResponseTests/everyByteThroughTheClientsOwnConnections",
        "CutShortResponseTests/aSlowReaderGetsEveryByteThroughTheClientsOwnConnections",
        "HTTPSProxyTests",
        // A connect timeout, proxy or TLS policy per request: refused (checked by the suite itself).
        "ConnectionOverridesTests",
        // AsyncHTTPClient's event loops, its HTTP/1.0 and TLS channel versions, sendfile.
        "TaskExecutorTests", "ProtocolVersionTests", "FileRegionUploadTests", "LargeUploadTests",
        // The default transport's connections per host, which URLSession counts its own way.
        "ConnectionLimitTests",
        // libcurl sends a POST again on a new connection; AsyncHTTPClient only with a key.
        "StaleConnectionTests/postNeedsAKey", "CoalescingTests/anErrorReachesEveryWaiter",
        // URLSession inflates codings itself: identity is asked for, br and zstd are read, a
        // stream cut short is not seen, decompression cannot be turned off.
        "ContentCodingTests", "ClientBasicsTests/decompressionBombIsRefused", "ClientBasicsTests/defaultHeadersAndRequestHeaders",
        "StandardAPIConformanceTests/codings",
        // URLSession joins repeated fields with commas.
        "ClientBasicsTests/responseCarriesStatusHeadersTimingAndURL",
        // A streamed body goes chunked on Linux, without Content-Length.
        "MultipartIntegrationTests/fieldsDataAndFilesAreParsedBackByTheServer",
        "MultipartIntegrationTests/theWireBytesOfASmallFormWithAChosenBoundary", "StandardAPIConformanceTests/emptyBody",
        // Trailers cannot be sent: refused (checked by CourierURLSessionTransportTests).
        "StandardAPIConformanceTests/trailersBothWays",
        // FoundationNetworking stops the process on a response that ends with trailers; the
        // article says so.
        "TrailerTests/bufferedResponse", "TrailerTests/streamedResponse",
        // An interim 1xx is handed over as final: refused as malformed.
        "StatusCodeTests/interimResponses",
        // Full duplex: nothing of a response arrives while its body waits for a piece; the
        // refusal of a duplex body is checked by DuplexOnURLSessionTests.
        "DuplexTests", "StandardAPIConformanceTests/echoInterleave", "StandardAPIConformanceTests/speakInterleave",
        // FoundationNetworking measures its request timeout with a timer of its own, which on
        // a machine loaded by the whole suite has fired between pieces 500 ms apart under a
        // 10 s timeout (twice in this suite's runs); the idle rule is checked on the default
        // transport, whose watchdog is Courier's own.
        "ReadTimeoutIntegrationTests/aBodyThatKeepsComingOutlastsTheReadTimeout",
        // A connection handed over to WebSocket: the client's own transport alone can (the
        // refusal is checked by WebSocketTests itself).
        "WebSocketTests",
        // Checked directly, this test itself, or a test that runs the binary again (in a network
        // namespace) with its own selection.
        "CourierURLSessionTransportTests", "URLSessionSuitePassTests", "NetworkPathWatcherTests",
    ]

    @Test(.timeLimit(.minutes(20)))
    func courierTestsPassOverURLSession() async throws {
        let skipped = URLSessionSuitePassTests.defaultTransportOnly.map { "CourierTests\\.\($0)\\b" }.joined(separator: "|")
        let run = try await TestBinaryRun.run(
            ["--filter", "^CourierTests\\.", "--skip", skipped],
            // Few at a time: this run shares the cores with the rest of the suite, whose tests
            // with deadlines must not wait behind it.
            environment: ["COURIER_TEST_TRANSPORT": "urlsession", "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH": "3"]
        )
        #expect(run.status == 0, "the suite over CourierURLSessionTransport failed:\n\(run.failures)")
        // It ran the suite, not an empty selection.
        #expect(run.testCount > 400, "\(run.output.suffix(2000))")
    }
}
#endif
