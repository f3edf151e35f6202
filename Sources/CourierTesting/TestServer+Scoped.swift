extension TestServer {
    /// Starts a server (speaking HTTPS with `tls`), runs `body` with it, and shuts the server down afterwards, whether
    /// `body` returned or threw.
    ///
    /// ```swift
    /// try await TestServer.withServer { server in
    ///     let client = Client(configuration: ClientConfiguration(baseURL: server.baseURL))
    ///     …
    /// }
    /// ```
    public static func withServer<Result>(
        tls: TestServerTLS? = nil,
        _ body: (TestServer) async throws -> Result
    ) async throws -> Result {
        let server = try await TestServer.start(tls: tls)
        let result: Result
        do {
            result = try await body(server)
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
        return result
    }
}
