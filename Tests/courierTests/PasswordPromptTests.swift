import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import courier

/// Runs `courier ARGS…` with `answer` typed at the password prompt; returns the run and the
/// prompts shown.
private func courier(answering answer: String?, _ arguments: String...) async -> (run: (status: Int32, stdout: String, stderr: String, raw: Data), prompts: [String]) {
    let prompts = NIOLockedValueBox<[String]>([])
    let run = await PasswordPrompt.$ask.withValue({ prompt in
        prompts.withLockedValue { $0.append(prompt) }
        return answer
    }) {
        await courier(arguments)
    }
    return (run, prompts.withLockedValue { $0 })
}

@Suite("courier -u USER: the password prompt")
struct PasswordPromptTests {
    @Test func thePasswordTypedReachesTheServer() async throws {
        try await withServer { server in
            let (run, prompts) = await courier(answering: "p:ss word", "fetch", server.url("/basic-auth/ada/p:ss%20word").absoluteString, "-u", "ada")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(prompts == ["Enter host password for user 'ada':"])
            #expect(run.stdout.contains("\"authenticated\""))
            #expect(!run.stdout.contains("p:ss") && !run.stderr.contains("p:ss"))
        }
    }

    @Test func downloadAsksToo() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer { server in
            let file = folder.appendingPathComponent("out.json").path
            let (run, prompts) = await courier(answering: "pw", "download", server.url("/digest-auth/auth/ada/pw/SHA-256").absoluteString, "-u", "ada", "-o", file, "-s")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(prompts.count == 1)
            let body = try String(contentsOfFile: file, encoding: .utf8)
            #expect(body.contains("\"authenticated\""))
        }
    }

    @Test func aWrongPasswordIsSentOnceAndItsFinal401IsTheResponse() async throws {
        try await withServer { server in
            let (run, prompts) = await courier(answering: "wrong", "fetch", server.url("/basic-auth/ada/pw").absoluteString, "-u", "ada", "--fail")
            #expect(run.status == 22)
            #expect(prompts.count == 1)
            #expect(server.credentialedRequests(under: "/basic-auth") == 1)
        }
    }

    @Test func withoutATerminalItIsInvalidInputNamingTheWaysOut() async throws {
        try await withServer { server in
            let (run, prompts) = await courier(answering: nil, "fetch", server.url("/basic-auth/ada/pw").absoluteString, "-u", "ada")
            #expect(run.status == 2)
            #expect(prompts.count == 1)
            #expect(run.stderr.contains("-u USER:PASSWORD") && run.stderr.contains("--netrc"), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func theUserNameIsEscapedInThePrompt() async {
        let (run, prompts) = await courier(answering: nil, "fetch", "http://127.0.0.1:9/", "-u", "a\u{1B}[2Jb")
        #expect(run.status == 2)
        #expect(prompts.count == 1 && !prompts[0].contains("\u{1B}"))
        #expect(!run.stderr.contains("\u{1B}"))
    }
}
