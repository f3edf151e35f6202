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
        "TLSVersionFloorTests", "VerifiedConnectionTests",
        // A proxy: refused.
        "ProxyIntegrationTests", "ProxyFailureTests", "SecretRedactionTests",
        // AsyncHTTPClient's event loops, its HTTP/1.0 and TLS channel versions, sendfile.
        "TaskExecutorTests", "ProtocolVersionTests", "FileRegionUploadTests", "LargeUploadTests",
        // libcurl sends a POST again on a new connection; AsyncHTTPClient only with a key.
        "StaleConnectionTests/postNeedsAKey", "CoalescingTests/anErrorReachesEveryWaiter",
        // URLSession inflates codings itself: identity is asked for, br and zstd are read, a
        // stream cut short is not seen, decompression cannot be turned off.
        "ContentCodingTests", "ClientBasicsTests/decompressionBombIsRefused", "ClientBasicsTests/defaultHeadersAndRequestHeaders",
        // URLSession joins repeated fields with commas.
        "ClientBasicsTests/responseCarriesStatusHeadersTimingAndURL",
        // A streamed body goes chunked on Linux, without Content-Length.
        "MultipartIntegrationTests/fieldsDataAndFilesAreParsedBackByTheServer",
        "MultipartIntegrationTests/theWireBytesOfASmallFormWithAChosenBoundary",
        // An interim 1xx is handed over as final: refused as malformed.
        "StatusCodeTests/interimResponses",
        // Checked directly, or this test itself.
        "CourierURLSessionTransportTests", "URLSessionSuitePassTests",
    ]

    @Test(.timeLimit(.minutes(20)))
    func courierTestsPassOverURLSession() async throws {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("courier-urlsession-pass-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let output = try FileHandle(forWritingTo: log)
        let skipped = URLSessionSuitePassTests.defaultTransportOnly.map { "CourierTests\\.\($0)\\b" }.joined(separator: "|")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--testing-library", "swift-testing", "--filter", "^CourierTests\\.", "--skip", skipped]
        var environment = ProcessInfo.processInfo.environment
        environment["COURIER_TEST_TRANSPORT"] = "urlsession"
        // Few at a time: this run shares the cores with the rest of the suite, whose tests with
        // deadlines must not wait behind it.
        environment["SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"] = "3"
        process.environment = environment
        process.standardOutput = output
        process.standardError = output
        let status = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
                process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            process.terminate()
        }
        try output.close()
        let text = String(decoding: try Data(contentsOf: log), as: UTF8.self)
        let failures = text.split(separator: "\n").filter { $0.contains("✘") }.prefix(40).joined(separator: "\n")
        #expect(status == 0, "the suite over CourierURLSessionTransport failed:\n\(failures)")
        // It ran the suite, not an empty selection.
        let summary = text.split(separator: "\n").last { $0.contains("Test run with") }.map(String.init) ?? ""
        let count = summary.split(separator: " ").drop { $0 != "with" }.dropFirst().first.flatMap { Int($0) } ?? 0
        #expect(count > 400, "\(summary)")
    }
}
#endif
