import Courier
import CourierTesting
import Foundation
import Testing

/// Digest authentication (RFC 7616) against the test server, which checks every answer with
/// code of its own.
@Suite("Digest authentication against the in-process server")
struct DigestAuthenticationTests {
    static let algorithms = ["MD5", "MD5-sess", "SHA-256", "SHA-256-sess"]
    static let qops = ["auth", "auth-int", "auth,auth-int"]

    func digestClient<T>(_ server: TestServer, password: String = "passwd", _ body: (CourierClient) async throws -> T) async throws -> T {
        try await withClient(
            server,
            configure: {
                $0.authentication = Authentication(.password(user: "user", password: password))
            }, body)
    }

    /// A streamed body of `text`, produced anew for each send. Its length is left unknown
    /// (chunked), so that the server answers only after the client marked the body's end: the
    /// transport on AsyncHTTPClient 1.37 can trap in the connection pool when a response to a
    /// body of known length arrives before that (a fault of the transport, not of
    /// authentication; these tests do not need to provoke it).
    static func streamed(_ text: String) -> CourierRequestBody {
        .stream(length: nil) {
            AsyncThrowingStream { continuation in
                continuation.yield(Data(text.utf8))
                continuation.finish()
            }
        }
    }

    /// A POST with `body`, or a GET without one.
    static func request(_ path: String, body: CourierRequestBody? = nil) -> CourierRequest<DigestResult> {
        var request = CourierRequest<DigestResult>(method: body == nil ? .get : .post, path: path)
        request.body = body
        return request
    }

    @Test("Each algorithm and qop; the nonce count rises request after request", arguments: algorithms, qops)
    func algorithmAndQop(algorithm: String, qop: String) async throws {
        try await withServer { server in
            try await digestClient(server) { client in
                let path = "/digest-auth/\(qop)/user/passwd/\(algorithm)"
                // A body where the qop can hash it; each POST body differs, so each hash does.
                let bodies: [CourierRequestBody?] = qop == "auth" ? [nil, nil, nil] : (1...3).map { .text("body \($0)") }
                var results: [DigestResult] = []
                for body in bodies { results.append(try await client.send(Self.request(path, body: body))) }
                let expectedQop = qop == "auth" ? "auth" : "auth-int"
                #expect(results.map(\.qop) == Array(repeating: expectedQop, count: 3))
                #expect(results.map(\.nc) == [1, 2, 3])
                // One challenge, then every request authenticated up front with the same nonce.
                #expect(server.requests(under: "/digest-auth").count == 4)
                #expect(server.credentialedRequests(under: "/digest-auth") == 3)
                let sent = server.requests(under: "/digest-auth").compactMap { $0.header("Authorization") }
                #expect(sent.allSatisfy { $0.contains("algorithm=\(algorithm)") })
            }
        }
    }

    @Test func aStreamedBodyIsAnsweredWithAuthWhenOffered() async throws {
        try await withServer { server in
            try await digestClient(server) { client in
                let result = try await client.send(Self.request("/digest-auth/auth,auth-int/user/passwd/SHA-256", body: Self.streamed("stream")))
                #expect(result.qop == "auth")
                // The stream was produced again for the second (authenticated) send.
                #expect(server.requests(under: "/digest-auth").map(\.bodyString) == ["stream", "stream"])
            }
        }
    }

    @Test func anUploadAfterAFirstRequestCarriesCredentialsUpFront() async throws {
        try await withServer { server in
            try await digestClient(server) { client in
                let path = "/digest-auth/auth/user/passwd/SHA-256"
                try await client.send(CourierRequest<Void>(method: .head, path: path))
                server.clearReceivedRequests()
                let result = try await client.send(Self.request(path, body: Self.streamed("upload")))
                #expect(result.nc == 2)
                #expect(server.receivedRequests.count == 1)
                #expect(server.receivedRequests.first?.bodyString == "upload")
            }
        }
    }

    @Test func aStreamedBodyCannotAnswerAuthIntAlone() async throws {
        try await withServer { server in
            try await digestClient(server) { client in
                let error = await courierError {
                    _ = try await client.send(Self.request("/digest-auth/auth-int/user/passwd/MD5", body: Self.streamed("x")))
                }
                #expect(error?.kind == .authenticationFailed)
                #expect(error?.message.contains("auth-int") == true)
                #expect(server.credentialedRequests(under: "/digest-auth") == 0)
            }
        }
    }

    @Test func aStaleNonceIsAnsweredOnceWithoutCountingAsAFailure() async throws {
        try await withServer { server in
            try await digestClient(server) { client in
                let path = "/digest-auth/auth/user/passwd/SHA-256?stale_after=1"
                let first = try await client.send(Self.request(path))
                let second = try await client.send(Self.request(path))
                #expect(first.nc == 1)
                // The second request used the first nonce (nc 2), was told it is stale, and
                // answered the new nonce from nc 1.
                #expect(second.nc == 1)
                let exchanges = server.requests(under: "/digest-auth")
                #expect(exchanges.count == 4)
                let nonces = exchanges.compactMap { $0.header("Authorization") }.map { field in
                    field.components(separatedBy: "nonce=\"")[1].prefix { $0 != "\"" }
                }
                #expect(nonces.count == 3)
                #expect(nonces[0] == nonces[1] && nonces[1] != nonces[2])
            }
        }
    }

    @Test func staleNoncesInARowDoNotUseUpTheAttempts() async throws {
        try await withServer { server in
            try await digestClient(server) { client in
                // Every nonce is stale at its first use, three times: counted as refusals,
                // they would end the request at the first.
                let result = try await client.send(Self.request("/digest-auth/auth/user/passwd/MD5?stale_after=0&stale_times=3"))
                #expect(result.nc == 1)
                let fields = server.requests(under: "/digest-auth").compactMap { $0.header("Authorization") }
                #expect(fields.count == 4)
                #expect(Set(fields.map { $0.components(separatedBy: "nonce=\"")[1].prefix { $0 != "\"" } }).count == 4)
            }
        }
    }

    @Test func aWrongPasswordIsSentOnce() async throws {
        try await withServer { server in
            try await digestClient(server, password: "wrong") { client in
                let error = await courierError {
                    _ = try await client.send(Self.request("/digest-auth/auth/user/passwd/SHA-256"))
                }
                #expect(error?.kind == .authenticationFailed)
                #expect(error?.response?.status == 401)
                #expect(error?.message.contains("refused") == true)
                #expect(error?.response?.request?.headers["Authorization"] == nil)
                #expect(server.credentialedRequests(under: "/digest-auth") == 1)
                #expect(server.requests(under: "/digest-auth").count == 2)
            }
        }
    }

    @Test func basicSentUpFrontAndRefusedIsFollowedByDigest() async throws {
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.authentication = Authentication(.password(user: "user", password: "passwd", preemptive: true))
                }
            ) { client in
                let result = try await client.send(Self.request("/digest-auth/auth/user/passwd/MD5"))
                #expect(result.nc == 1)
                let fields = server.requests(under: "/digest-auth").map { $0.header("Authorization") ?? "" }
                #expect(fields.map { $0.split(separator: " ").first.map(String.init) ?? "" } == ["Basic", "Digest"])
            }
        }
    }

    @Test func theStrongestOfferedChallengeIsAnswered() async throws {
        try await withServer { server in
            try await digestClient(server) { client in
                // The 401 offers Basic and SHA-256 Digest in one field and MD5 Digest in another;
                // the server accepts only SHA-256.
                let result = try await client.send(Self.request("/digest-auth/auth/user/passwd/SHA-256?offer=weaker"))
                #expect(result.authenticated)
                let challenge = try #require(server.requests(under: "/digest-auth").first)
                #expect(challenge.header("Authorization") == nil)
            }
        }
    }

    @Test func namesAndPasswordsWithSpecialCharacters() async throws {
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.authentication = Authentication(.password(user: #"Jä "q" \"#, password: "Circle of Life:ü"))
                }
            ) { client in
                let path = "/digest-auth/auth/J%C3%A4%20%22q%22%20%5C/Circle%20of%20Life%3A%C3%BC/SHA-256"
                let result = try await client.send(Self.request(path))
                #expect(result.user == #"Jä "q" \"#)
            }
        }
    }
}
