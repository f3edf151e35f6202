import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

@Suite("courier fetch --user and --bearer")
struct FetchAuthenticationTests {
    @Test(
        "--user answers Basic and every Digest algorithm",
        arguments: [
            "/basic-auth/ada/p%3Ass", "/digest-auth/auth/ada/p%3Ass/MD5", "/digest-auth/auth/ada/p%3Ass/SHA-256",
            "/digest-auth/auth-int/ada/p%3Ass/SHA-256-sess",
        ])
    func userAnswersChallenges(path: String) async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url(path).absoluteString, "--user", "ada:p:ss", "--report", "json")
            #expect(run.status == 0, "\(run.stderr)")
            let status = try report(run.stdout.trimmingCharacters(in: .newlines))["status"] as? Int
            #expect(status == 200)
            let sent = server.receivedRequests.map { $0.header("Authorization") }
            #expect(sent.first == .some(nil), "nothing is sent before the server asks")
            #expect(sent.count == 2)
        }
    }

    @Test func relativeURLsAuthenticateAgainstTheBaseURL() async throws {
        try await withServer { server in
            let run = await courier("fetch", "/digest-auth/auth/ada/pw/SHA-256", "--base-url", server.baseURL.absoluteString, "--user", "ada:pw")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("\"authenticated\""))
        }
    }

    @Test("refused credentials are sent once and, as in curl, the final 401 is the response: 0, or 22 with --fail")
    func refusedCredentialsDeliverThe401() async throws {
        try await withServer { server in
            let url = server.url("/digest-auth/auth/ada/pw/MD5").absoluteString
            let run = await courier("fetch", url, "--user", "ada:wrong", "--report", "json")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.isEmpty)
            let status = try report(run.stdout.trimmingCharacters(in: .newlines))["status"] as? Int
            #expect(status == 401)
            #expect(server.credentialedRequests(under: "/digest-auth") == 1)  // a wrong password is sent once
            let failed = await courier("fetch", url, "--user", "ada:wrong", "--fail")
            #expect(failed.status == 22)
            #expect(failed.stderr.hasPrefix("courier: 127.0.0.1:\(server.port) answered 401 "), "\(failed.stderr)")
            #expect(failed.stderr.split(separator: "\n").count == 1)
            #expect(!failed.stderr.contains("wrong"))
            #expect(server.credentialedRequests(under: "/digest-auth") == 2)
        }
    }

    @Test func bearerSendsTheToken() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/bearer?token=abc").absoluteString, "--bearer", "abc")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(server.receivedRequests.map { $0.header("Authorization") } == ["Bearer abc"])
            let refused = await courier("fetch", server.url("/bearer?token=abc").absoluteString, "--bearer", "other")
            #expect(refused.status == 0, "\(refused.stderr)")
            let failed = await courier("fetch", server.url("/bearer?token=abc").absoluteString, "--bearer", "other", "--fail")
            #expect(failed.status == 22)
        }
    }

    @Test(arguments: [
        ["--user", ""], ["--user", ":password"], ["--bearer", ""], ["--user", "a:b", "--bearer", "t"],
    ])
    func badCredentialOptionsAreInvalidInput(options: [String]) async {
        let (output, captured) = Output.capturing()
        let status = await PasswordPrompt.$ask.withValue({ _ in
            Issue.record("asked for a password"); return nil
        }) {
            await CourierCLI.run(["fetch", "http://127.0.0.1:9/"] + options, output: output)
        }
        #expect(status == 2, "\(options) → \(status): \(captured.stderr)")
    }
}

extension TestServer {
    /// How many requests for paths starting with `prefix` carried an `Authorization` field.
    func credentialedRequests(under prefix: String) -> Int {
        receivedRequests.filter { $0.path.hasPrefix(prefix) && $0.header("Authorization") != nil }.count
    }
}
