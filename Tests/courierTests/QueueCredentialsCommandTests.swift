import Courier
import CourierQueue
import CourierTesting
import Foundation
import Testing

@testable import courier

/// `fetch --durable` with credentials, and `queue run` giving them again: the queue file never
/// holds them.
@Suite("courier queue run with credentials")
struct QueueCredentialsCommandTests {
    /// The id `fetch --durable` printed as `queued ID`.
    static func queuedID(_ stdout: String) -> String? {
        guard stdout.hasPrefix("queued ") else { return nil }
        return String(stdout.dropFirst("queued ".count)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether the queue database at `path`, or its `-wal` or `-shm` file, holds `secret`.
    static func filesContain(_ path: String, _ secret: String) -> Bool {
        [path, path + "-wal", path + "-shm"].contains { FileManager.default.contents(atPath: $0)?.range(of: Data(secret.utf8)) != nil }
    }

    @Test func aBearerTokenIsGivenAgainToQueueRunAndNeverWritten() async throws {
        let reserved = try ReservedPort()
        defer { withExtendedLifetime(reserved) {} }
        let token = "T-\(UUID().uuidString)"
        let url = reserved.url("/idempotent/bearer").absoluteString
        try await withQueuePath { path in
            let fetch = await courier("fetch", url, "--data", "x", "--durable", "--queue", path, "--bearer", token)
            #expect(fetch.status == 0, "\(fetch.stderr)")
            let id = try #require(Self.queuedID(fetch.stdout))
            #expect(!Self.filesContain(path, token))

            let server = try await TestServer.start(port: reserved.port)
            let without = await courier("queue", "run", "--queue", path, "--deadline", "60")
            #expect(without.status == ExitStatus.queueNotEmpty.rawValue)
            #expect(without.stdout == "waiting \(id) needs credentials for http://127.0.0.1:\(reserved.port) (Authorization): give --bearer, --user or -H\n")
            #expect(without.stderr.contains("wait for credentials"))
            #expect(server.receivedRequests.isEmpty)
            let list = await courier("queue", "list", "--queue", path)
            #expect(list.stdout == "\(id) pending 1 POST \(url)\n", "kept, its one real attempt counted")

            let with = await courier("queue", "run", "--queue", path, "--deadline", "60", "--bearer", token)
            try await server.shutdown()
            #expect(with.status == 0, "\(with.stderr)")
            #expect(with.stdout == "delivered \(id) 201\n")
            #expect(server.receivedRequests.map { $0.header("Authorization") } == ["Bearer \(token)"])
            #expect(!Self.filesContain(path, token))
        }
    }

    @Test func anAuthorizationHeaderIsSentOnTheFirstAttemptAndGivenAgainWithDashH() async throws {
        try await withServer { server in
            try await withQueuePath { path in
                let now = await courier(
                    "fetch", server.url("/idempotent/now").absoluteString, "--data", "x", "--durable", "--queue", path, "-H", "Authorization: Bearer first"
                )
                #expect(now.status == 0, "\(now.stderr)")
                #expect(server.receivedRequests.map { $0.header("Authorization") } == ["Bearer first"])
                #expect(!Self.filesContain(path, "Bearer first"))
            }
        }
        let reserved = try ReservedPort()
        defer { withExtendedLifetime(reserved) {} }
        try await withQueuePath { path in
            let fetch = await courier(
                "fetch", reserved.url("/idempotent/later").absoluteString, "--data", "x", "--durable", "--queue", path, "-H", "Authorization: Bearer second"
            )
            let id = try #require(Self.queuedID(fetch.stdout))
            let server = try await TestServer.start(port: reserved.port)
            let run = await courier("queue", "run", "--queue", path, "--deadline", "60", "-H", "Authorization: Bearer second")
            try await server.shutdown()
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == "delivered \(id) 201\n")
            #expect(server.receivedRequests.map { $0.header("Authorization") } == ["Bearer second"])
            #expect(!Self.filesContain(path, "Bearer second"))
        }
    }

    @Test func credentialsForRecordsOfSeveralOriginsNeedAnOrigin() async throws {
        let first = try ReservedPort()
        let second = try ReservedPort()
        defer { withExtendedLifetime((first, second)) {} }
        try await withQueuePath { path in
            for port in [first, second] {
                let fetch = await courier("fetch", port.url("/idempotent/o").absoluteString, "--data", "x", "--durable", "--queue", path, "--bearer", "t")
                #expect(Self.queuedID(fetch.stdout) != nil)
            }
            let servers = [try await TestServer.start(port: first.port), try await TestServer.start(port: second.port)]
            let ambiguous = await courier("queue", "run", "--queue", path, "--deadline", "60", "--bearer", "t")
            #expect(ambiguous.status == ExitStatus.invalidInput.rawValue)
            #expect(ambiguous.stderr.contains("http://127.0.0.1:\(first.port)"))
            #expect(ambiguous.stderr.contains("http://127.0.0.1:\(second.port)"))
            #expect(ambiguous.stderr.contains("--origin"))
            #expect(servers.allSatisfy { $0.receivedRequests.isEmpty }, "refused before any request")

            // With --origin, only that origin's record gets the token; the other one waits.
            let chosen = await courier("queue", "run", "--queue", path, "--deadline", "60", "--bearer", "t", "--origin", "http://127.0.0.1:\(first.port)")
            for server in servers { try await server.shutdown() }
            #expect(chosen.status == ExitStatus.queueNotEmpty.rawValue)
            #expect(chosen.stdout.contains("delivered "))
            #expect(chosen.stdout.contains("waiting "))
            #expect(chosen.stdout.contains("http://127.0.0.1:\(second.port) (Authorization)"))
            #expect(servers[0].receivedRequests.map { $0.header("Authorization") } == ["Bearer t"])
            #expect(servers[1].receivedRequests.isEmpty)
        }
    }

    /// `--user` goes through the client's authentication: a Digest challenge is answered, for
    /// the record enqueued with credentials only.
    @Test func credentialsAnswerChallengesOnlyForRecordsEnqueuedWithThem() async throws {
        let reserved = try ReservedPort()
        defer { withExtendedLifetime(reserved) {} }
        try await withQueuePath { path in
            let plain = await courier("fetch", reserved.url("/idempotent/plain").absoluteString, "--data", "x", "--durable", "--queue", path, "--unordered")
            let plainID = try #require(Self.queuedID(plain.stdout))
            let digest = reserved.url("/digest-auth/auth/ada/pw/SHA-256").absoluteString
            let secret = await courier("fetch", digest, "--data", "x", "--durable", "--queue", path, "--user", "ada:pw", "--unordered")
            let secretID = try #require(Self.queuedID(secret.stdout))
            let server = try await TestServer.start(port: reserved.port)
            let run = await courier("queue", "run", "--queue", path, "--deadline", "60", "--user", "ada:pw")
            try await server.shutdown()
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("delivered \(plainID) 201"))
            #expect(run.stdout.contains("delivered \(secretID) 200"))
            #expect(server.receivedRequests.filter { $0.path == "/idempotent/plain" }.map { $0.header("Authorization") } == [nil])
            let answers = server.receivedRequests.filter { $0.path.hasPrefix("/digest-auth") }.map { $0.header("Authorization") }
            #expect(answers.count == 2)
            #expect(answers.first == .some(nil), "the challenge comes first")
            #expect(answers.last??.hasPrefix("Digest username=\"ada\"") == true)
        }
    }

    @Test(arguments: [["--origin", "ftp://example.test"], ["--origin", "http://127.0.0.1:9"], ["-H", "no-colon", "--origin", "http://127.0.0.1:9"]])
    func badCredentialOptionsAreUsageErrors(options: [String]) async throws {
        try await withQueuePath { path in
            let run = await courier(["queue", "run", "--queue", path] + options)
            #expect(run.status == ExitStatus.invalidInput.rawValue, "\(options): \(run.stderr)")
        }
    }
}
