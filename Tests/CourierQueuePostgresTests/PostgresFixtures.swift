import Courier
import CourierQueue
import CourierTesting
import Foundation
import NIOConcurrencyHelpers

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

/// One PostgreSQL server for the tests of this process that neither stop nor restart it,
/// started on first use and stopped by its PID when the process exits; each test gets a
/// database of its own on it. Starting a server costs more than a second of CPU, and a suite
/// of small tests that each started one loaded the machine for the rest of the run.
enum SharedPostgres {
    private static let cluster = NIOLockedValueBox<PostgresCluster?>(nil)
    private static let databases = NIOLockedValueBox(0)

    /// A new, empty database on the shared server.
    static func database() async throws -> URL {
        let cluster = try await offThePool { () throws -> PostgresCluster in
            try SharedPostgres.cluster.withLockedValue { held in
                if let held { return held }
                let started = try PostgresCluster.start()
                held = started
                atexit { SharedPostgres.cluster.withLockedValue { $0?.stop() } }
                return started
            }
        }
        let name = "shared_\(databases.withLockedValue { $0 += 1; return $0 })"
        try await offThePool { try cluster.createDatabase(name) }
        return URL(string: "postgres://\(cluster.username)@\(cluster.host):\(cluster.port)/\(name)?sslmode=disable&connect_timeout=120")!
    }
}

/// Runs `body` with a new database on the shared server (see ``SharedPostgres``).
func withSharedPostgres<T>(_ body: (URL) async throws -> T) async throws -> T {
    try await body(try await SharedPostgres.database())
}

/// A test server, and a new database on the shared PostgreSQL server.
func withServerAndSharedPostgres<T>(_ body: (TestServer, URL) async throws -> T) async throws -> T {
    try await TestServer.withServer { server in try await withSharedPostgres { url in try await body(server, url) } }
}
