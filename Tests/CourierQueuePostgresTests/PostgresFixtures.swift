import Courier
import CourierQueue
import CourierTesting
import Foundation

/// Runs `work` on a thread of its own: the cluster's calls block while programs run.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// Starts a throwaway PostgreSQL server with a database `courier`, runs `body` with the server
/// and the database's URL, and stops the server by its PID, whatever `body` did.
///
/// The URL gives opening two minutes: the bound guards against a hang, and on a loaded
/// two-core machine several workers creating the tables together took longer than the default.
func withPostgres<T>(_ body: (PostgresCluster, URL) async throws -> T) async throws -> T {
    let cluster = try await offThePool { try PostgresCluster.start() }
    do {
        try await offThePool { try cluster.createDatabase("courier") }
        let url = URL(string: "postgres://\(cluster.username)@\(cluster.host):\(cluster.port)/courier?sslmode=disable&connect_timeout=120")!
        let result = try await body(cluster, url)
        try await offThePool { cluster.stop() }
        return result
    } catch {
        _ = try? await offThePool { cluster.stop() }
        throw error
    }
}

/// A test server, and a PostgreSQL server with its queue URL.
func withServerAndPostgres<T>(_ body: (TestServer, PostgresCluster, URL) async throws -> T) async throws -> T {
    try await TestServer.withServer { server in
        try await withPostgres { cluster, url in try await body(server, cluster, url) }
    }
}
