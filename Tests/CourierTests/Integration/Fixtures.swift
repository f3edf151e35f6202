import Courier
import CourierTesting
import CourierURLSession
import Foundation
import NIOPosix
import Testing

/// Starts a test server, runs `body`, and stops the server whatever happens.
func withServer<T>(_ body: (TestServer) async throws -> T) async throws -> T {
    try await TestServer.withServer(body)
}

/// Starts two test servers (two origins: different ports), runs `body`, stops both.
func withTwoServers<T>(_ body: (TestServer, TestServer) async throws -> T) async throws -> T {
    try await withServer { first in
        try await withServer { second in try await body(first, second) }
    }
}

/// A client whose base URL is `server`, shut down after `body`.
func withClient<T>(
    _ server: TestServer?,
    configure: (inout ClientConfiguration) -> Void = { _ in },
    _ body: (CourierClient) async throws -> T
) async throws -> T {
    var configuration = ClientConfiguration(baseURL: server?.baseURL)
    // The whole suite keeps both cores busy, and a TLS handshake whose certificate check
    // waits behind other tests' work can take longer than the 10-second default; tests of
    // timeouts set their own.
    configuration.timeouts.connect = .seconds(120)
    configure(&configuration)
    guard TestTransport.selected == .urlSession else {
        return try await CourierClient.withClient(configuration: configuration, body)
    }
    return try await CourierClient.withClient(configuration: configuration, transport: try CourierURLSessionTransport(configuration: configuration), body)
}

/// The transport the suite's clients send through: the default, or, with
/// `COURIER_TEST_TRANSPORT=urlsession` in the environment, ``CourierURLSessionTransport``. The
/// suites that run both ways are listed in `.ci/run`.
enum TestTransport {
    case standard
    case urlSession

    static let selected: TestTransport = ProcessInfo.processInfo.environment["COURIER_TEST_TRANSPORT"] == "urlsession" ? .urlSession : .standard
}

/// Runs `operation` and returns the CourierError it throws; records an issue if it succeeds.
func courierError(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: () async throws -> Void
) async -> CourierError? {
    do {
        try await operation()
        Issue.record("expected a CourierError, but the operation succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as CourierError {
        return error
    } catch {
        Issue.record("expected a CourierError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Waits until `condition` holds, checking every 20 ms, for at most `attempts` checks (30 s by
/// default: a loaded machine can stall a test for seconds).
/// Returns whether it held; it never asserts on elapsed time.
func eventually(attempts: Int = 1500, _ condition: () -> Bool) async -> Bool {
    for _ in 0..<attempts {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// The JSON echo the test server returns for /get, /post, /anything…
struct Echo: Decodable, Sendable {
    let method: String
    let url: String
    let args: [String: JSONValue]
    let headers: [String: String]
    let data: String
    let form: [String: JSONValue]
    let json: JSONValue?

    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// Two of `client`'s task executors on different event loops, and the first one's loop.
/// Other tests take loops from the same group meanwhile, so two executors made in a row may
/// share one; up to 32 are tried.
func twoExecutorsOnDifferentLoops(of client: CourierClient) async throws -> (first: any TaskExecutor, firstLoop: ObjectIdentifier, other: any TaskExecutor) {
    func loop(of executor: any TaskExecutor) async -> ObjectIdentifier? {
        await withTaskExecutorPreference(executor) { MultiThreadedEventLoopGroup.currentEventLoop.map { ObjectIdentifier($0) } }
    }
    let first = client.makeTaskExecutor()
    let firstLoop = try #require(await loop(of: first), "a task on the executor runs on a loop")
    for _ in 0..<32 {
        let candidate = client.makeTaskExecutor()
        if await loop(of: candidate) != firstLoop { return (first, firstLoop, candidate) }
    }
    throw TwoLoopsNeeded()
}

/// The client's event-loop group has one loop.
struct TwoLoopsNeeded: Error {}
