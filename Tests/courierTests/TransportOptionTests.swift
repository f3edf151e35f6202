import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// `--transport urlsession` on `fetch`, `download` and `batch`: the same commands, sent through
/// URLSession, with Courier's redirect, credential and download rules; and the options
/// URLSession cannot honour refused before anything is sent.
@Suite("courier --transport")
struct TransportOptionTests {
    @Test func fetchFollowsRedirectsWithCouriersRulesAndKeepsTheCredentialAtItsOrigin() async throws {
        try await withServer { first in
            try await withServer { second in
                let target = second.url("/headers").absoluteString
                let run = await courier(
                    "fetch", first.url("/redirect-to?url=\(target)").absoluteString, "--transport", "urlsession",
                    "-H", "Authorization: Bearer secret", "--report", "json"
                )
                #expect(run.status == 0, "\(run.stderr)")
                let object = try report(run.stdout.trimmingCharacters(in: .newlines))
                #expect(object["redirects"] as? Int == 1)
                #expect(object["url"] as? String == target)
                #expect(first.receivedRequests.count == 1)
                let hop = try #require(second.receivedRequests.last)
                #expect(!hop.headers.contains { $0.name.lowercased() == "authorization" })
            }
        }
    }

    @Test func downloadWritesTheWholeFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-transport-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.bin").path
        try await withServer { server in
            let run = await courier("download", server.url("/range/300000?seed=3").absoluteString, "-o", path, "--transport", "urlsession")
            #expect(run.status == 0, "\(run.stderr)")
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(written == Data(TestServer.bytes(count: 300_000, seed: 3)))
        }
    }

    @Test func aDownloadDroppedPartWayResumesToTheSameBytes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-transport-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("dropped.bin").path
        try await withServer { server in
            let run = await courier(
                "download", server.url("/range/400000?seed=5&drops=2&drop_seed=3").absoluteString, "-o", path, "--transport", "urlsession"
            )
            #expect(run.status == 0, "\(run.stderr)")
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(written == Data(TestServer.bytes(count: 400_000, seed: 5)))
            #expect(server.receivedRequests.contains { request in request.headers.contains { $0.name.lowercased() == "range" } })
        }
    }

    @Test func batchSendsEveryRequestInOrder() async throws {
        try await withServer { server in
            let path = try batchFile(
                """
                [
                  {"url": "\(server.url("/get?n=0").absoluteString)"},
                  {"method": "PUT", "url": "\(server.url("/anything/put").absoluteString)", "body": "payload"},
                  {"url": "\(server.url("/status/404").absoluteString)"}
                ]
                """)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let run = await courier("batch", path, "--mode", "settle", "--transport", "urlsession", "--report", "json")
            let objects = try run.stdout.split(separator: "\n").map(String.init).map(report)
            #expect(objects.map { $0["status"] as? Int } == [200, 200, 404])
            #expect(server.receivedRequests.first { $0.method == "PUT" }?.bodyString == "payload")
        }
    }

    @Test(arguments: [["--pin", "sha256/" + Data(repeating: 1, count: 32).base64EncodedString()], ["--proxy", "http://127.0.0.1:9"], ["--tls-min", "1.3"]])
    func anOptionURLSessionCannotHonourIsRefusedAndNothingIsSent(option: [String]) async throws {
        try await withServer { server in
            let run = await courier(["fetch", server.url("/get").absoluteString, "--transport", "urlsession"] + option)
            #expect(run.status == 2, "\(run.stderr)")
            #expect(run.stderr.contains("--transport urlsession"))
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func anUnknownTransportIsAUsageError() async {
        let run = await courier("fetch", "http://127.0.0.1:9/", "--transport", "carrier-pigeon")
        #expect(run.status == 2)
        #expect(run.stderr.contains("transport"))
    }
}
