import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

@Suite("courier download --user, --bearer and -H")
struct DownloadAuthenticationTests {
    private func withFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-download-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder)
    }

    @Test(
        "credentials answer Basic, Digest and bearer endpoints",
        arguments: [
            ["/basic-auth/ada/p%3Ass", "--user", "ada:p:ss"],
            ["/digest-auth/auth/ada/p%3Ass/SHA-256", "--user", "ada:p:ss"],
            ["/digest-auth/auth-int/ada/p%3Ass/MD5", "--user", "ada:p:ss"],
            ["/bearer?token=tok-1", "--bearer", "tok-1"],
            ["/bearer?token=tok-1", "-H", "Authorization: Bearer tok-1"],
        ])
    func credentialsAnswerChallenges(arguments: [String]) async throws {
        try await withFolder { folder in
            try await withServer { server in
                let file = folder.appendingPathComponent("answer.json").path
                let run = await courier(["download", server.url(arguments[0]).absoluteString, "-o", file] + arguments.dropFirst())
                #expect(run.status == 0, "\(run.stderr)")
                let body = try String(contentsOfFile: file, encoding: .utf8)
                #expect(body.contains("authenticated") || body.contains("tok-1"), "\(body)")
            }
        }
    }

    @Test("a wrong password fails with the HTTP error status and writes nothing")
    func wrongPasswordFails() async throws {
        try await withFolder { folder in
            try await withServer { server in
                let file = folder.appendingPathComponent("answer.json").path
                let run = await courier("download", server.url("/basic-auth/ada/right").absoluteString, "-o", file, "--user", "ada:wrong")
                #expect(run.status == 22, "\(run.stderr)")
                #expect(!FileManager.default.fileExists(atPath: file))
            }
        }
    }

    @Test(
        "credentials follow a same-origin redirect and never cross to another origin",
        arguments: [
            ["--bearer", "tok-1"], ["-H", "Authorization: Bearer tok-1"], ["--user", "ada:pw"],
        ])
    func credentialsStayOnTheirOrigin(options: [String]) async throws {
        try await withFolder { folder in
            try await TestServer.withServer { first in
                try await TestServer.withServer { second in
                    let away = second.url("/range/1000").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                    let file = folder.appendingPathComponent("away.bin").path
                    var arguments = ["download", first.url("/redirect-to?url=\(away)").absoluteString, "-o", file]
                    if options[0] == "--user" { arguments += ["--user", "ada:pw"] } else { arguments += options }
                    let run = await courier(arguments)
                    #expect(run.status == 0, "\(run.stderr)")
                    let written = try Data(contentsOf: URL(fileURLWithPath: file))
                    #expect(written.count == 1000)
                    #expect(!second.receivedRequests.isEmpty)
                    #expect(second.receivedRequests.allSatisfy { $0.header("Authorization") == nil })

                    let same = folder.appendingPathComponent("same.json").path
                    let target = "/bearer?token=tok-1".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                    if options[0] != "--user" {
                        let stayed = await courier(["download", first.url("/redirect-to?url=\(target)").absoluteString, "-o", same] + options)
                        #expect(stayed.status == 0, "\(stayed.stderr)")
                        #expect(first.receivedRequests.last?.header("Authorization") == "Bearer tok-1")
                    }
                }
            }
        }
    }
}

@Suite("courier fetch streams its body")
struct FetchStreamingTests {
    @Test("a body larger than the library's collected-body limit goes to -o whole")
    func largeBodyToFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fetch-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer { server in
            let size = ClientConfiguration.defaultMaximumBodySize + 1_000_000
            let file = folder.appendingPathComponent("big.bin").path
            let run = await courier("fetch", server.url("/range/\(size)?seed=5").absoluteString, "-o", file)
            #expect(run.status == 0, "\(run.stderr)")
            let written = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(written.count == size)
            #expect(written == Data(TestServer.bytes(count: size, seed: 5)))
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(files == ["big.bin"])
        }
    }

    @Test("--max-filesize refuses a larger body, announced or not, and leaves no file", arguments: ["/range/5000", "/stream-bytes/5000"])
    func maxFilesize(path: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fetch-max-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer { server in
            let file = folder.appendingPathComponent("out.bin").path
            let refused = await courier("fetch", server.url(path).absoluteString, "-o", file, "--max-filesize", "4999")
            #expect(refused.status == 63, "\(refused.stderr)")
            #expect(refused.stderr.contains("--max-filesize"))
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(left.isEmpty)
            let allowed = await courier("fetch", server.url(path).absoluteString, "-o", file, "--max-filesize", "5000")
            #expect(allowed.status == 0, "\(allowed.stderr)")
            let kept = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(kept.count == 5000)
        }
    }

    @Test("--max-filesize holds when the body is read whole, for --report json", arguments: ["/range/5000", "/stream-bytes/5000"])
    func maxFilesizeWithReport(path: String) async throws {
        try await withServer { server in
            let refused = await courier("fetch", server.url(path).absoluteString, "--report", "json", "--max-filesize", "4999")
            #expect(refused.status == 63, "\(refused.stderr)")
            #expect(refused.stdout.isEmpty)
            let allowed = await courier("fetch", server.url(path).absoluteString, "--report", "json", "--max-filesize", "5000")
            #expect(allowed.status == 0, "\(allowed.stderr)")
            let body = try #require(Data(base64Encoded: try report(allowed.stdout.trimmingCharacters(in: .newlines))["body_base64"] as? String ?? ""))
            #expect(body.count == 5000)
        }
    }

    @Test("-o into a folder that does not exist fails before anything is sent")
    func unwritableOutputFailsFirst() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/get").absoluteString, "-o", "/nonexistent-\(UUID().uuidString)/out")
            #expect(run.status == 23, "\(run.stderr)")
            #expect(server.receivedRequests.isEmpty)
        }
    }
}
