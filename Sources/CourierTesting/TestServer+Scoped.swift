import CourierDemoServer

extension TestServer {
    /// Starts a server on `127.0.0.1` that speaks HTTPS with `tls` (plain HTTP when it is
    /// `nil`): on `port`, or on an ephemeral port when it is 0 (the default). Pass the
    /// ``TestServer/port`` of a server that was shut down, and its ``TestServer/ledger``, to bring
    /// it back as if it had restarted.
    public static func start(
        tls: TestServerTLS?, port: Int = 0, ledger: IdempotencyLedger = IdempotencyLedger()
    ) async throws -> TestServer {
        try await start(sslContext: try tls?.makeContext(), port: port, ledger: ledger)
    }

    /// Starts a server (speaking HTTPS with `tls`), runs `body` with it, and shuts the server down afterwards, whether
    /// `body` returned or threw.
    ///
    /// ```swift
    /// try await TestServer.withServer { server in
    ///     try await CourierClient.withClient(configuration: ClientConfiguration(baseURL: server.baseURL)) { client in
    ///         _ = try await client.send(CourierRequest<Data>(path: "/get"))
    ///     }
    /// }
    /// ```
    public static func withServer<Result>(
        tls: TestServerTLS? = nil,
        _ body: (TestServer) async throws -> Result
    ) async throws -> Result {
        try await scoped(try await TestServer.start(tls: tls), shutdown: { try await $0.shutdown() }, body)
    }
}

/// Runs `body` with `resource`, then `shutdown`, whether `body` returned or threw; a failure
/// to shut down after `body` threw is dropped in favour of `body`'s error.
func scoped<Resource, Result>(
    _ resource: Resource,
    shutdown: (Resource) async throws -> Void,
    _ body: (Resource) async throws -> Result
) async throws -> Result {
    let result: Result
    do {
        result = try await body(resource)
    } catch {
        try? await shutdown(resource)
        throw error
    }
    try await shutdown(resource)
    return result
}
