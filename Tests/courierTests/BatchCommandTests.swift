import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// Writes `json` to a new temporary file and returns its path.
func batchFile(_ json: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("batch-\(UUID().uuidString).json").path
    try Data(json.utf8).write(to: URL(fileURLWithPath: path))
    return path
}

@Suite("courier batch")
struct BatchCommandTests {
    @Test func settleReportsEveryRequestInTheFilesOrder() async throws {
        // A port that refuses connections, and that no server of another test can take.
        let reserved = try ReservedPort()
        let refused = reserved.url("/get").absoluteString
        try await withServer { server in
            let path = try batchFile(
                """
                [
                  {"url": "\(server.url("/delay/0.2?first").absoluteString)"},
                  {"method": "PUT", "url": "\(server.url("/anything/put").absoluteString)", "headers": {"X-Tag": "seven"}, "body": "payload"},
                  {"url": "\(server.url("/status/404").absoluteString)"},
                  {"url": "\(refused)"}
                ]
                """)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let run = await courier("batch", path, "--mode", "settle", "--concurrency", "4", "--report", "json")
            withExtendedLifetime(reserved) {}

            #expect(run.status == 7, "the first failure in file order is a refused connection")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 4)
            let objects = try lines.map(report)
            #expect(objects.map { $0["index"] as? Int } == [0, 1, 2, 3])
            #expect(objects[0]["status"] as? Int == 200)
            #expect(objects[2]["status"] as? Int == 404)
            let put = try #require(Data(base64Encoded: objects[1]["body_base64"] as? String ?? ""))
            let echo = try #require(try JSONSerialization.jsonObject(with: put) as? [String: Any])
            #expect(echo["method"] as? String == "PUT")
            #expect(echo["data"] as? String == "payload")
            #expect((echo["headers"] as? [String: String])?["X-Tag"] == "seven")
            let error = try #require(objects[3]["error"] as? [String: Any])
            #expect(error["kind"] as? String == "connectionFailed")
            #expect(objects[3]["url"] as? String == refused)
            #expect(run.stderr.hasPrefix("courier: 1 of 4 requests failed; the first, request 3:"))
            #expect(run.stderr.split(separator: "\n").count == 1, "one line on stderr per failure")
            #expect(server.receivedRequests.count == 3)
        }
    }

    @Test func failFastStopsAtTheFirstFailureAndReportsTheRestAsCancelled() async throws {
        try await withServer { server in
            let path = try batchFile(
                """
                [
                  {"url": "\(server.url("/gate/held?a").absoluteString)"},
                  {"url": "\(server.url("/status/500").absoluteString)"},
                  {"url": "\(server.url("/gate/held?b").absoluteString)"},
                  {"url": "\(server.url("/get?never").absoluteString)"}
                ]
                """)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let run = await courier("batch", path, "--concurrency", "3", "--fail", "--report", "json")

            #expect(run.status == 22)
            let objects = try run.stdout.split(separator: "\n").map { try report(String($0)) }
            #expect(objects.count == 4)
            let kinds = objects.map { ($0["error"] as? [String: Any])?["kind"] as? String }
            #expect(kinds == ["cancelled", "validationFailed", "cancelled", "cancelled"])
            #expect(!server.receivedRequests.contains { $0.uri.contains("never") })
        }
    }

    @Test func plainOutputIsOneLinePerRequest() async throws {
        try await withServer { server in
            let items = (0..<3).map { "{\"url\": \"\(server.url("/bytes/\($0 + 1)").absoluteString)\"}" }
            let path = try batchFile("[" + items.joined(separator: ",") + "]")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let run = await courier("batch", path)
            #expect(run.status == 0)
            #expect(run.stdout == (0..<3).map { "\($0) 200 \(server.url("/bytes/\($0 + 1)").absoluteString) \($0 + 1) bytes\n" }.joined())
            #expect(run.stderr.isEmpty)
        }
    }

    @Test func progressLineOnATerminalEndsAtTheTotal() async throws {
        try await withServer { server in
            let items = (0..<20).map { "{\"url\": \"\(server.url("/get?i=\($0)").absoluteString)\"}" }
            let path = try batchFile("[" + items.joined(separator: ",") + "]")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let (output, captured) = Output.capturing(terminal: true)
            let status = await CourierCLI.run(["batch", path, "--concurrency", "5"], output: output)
            #expect(status == 0)
            let progress = captured.progress
            #expect(progress.first == "0 of 20 done, 0 failed")
            #expect(progress.last == "20 of 20 done, 0 failed\n")
            #expect(captured.stdout.split(separator: "\n").count == 20)
        }
    }

    @Test func manyRequestsKeepTheirOrder() async throws {
        try await withServer { server in
            let count = 2_000
            let items = (0..<count).map { "{\"url\": \"\(server.url("/anything/\($0)").absoluteString)\"}" }
            let path = try batchFile("[" + items.joined(separator: ",") + "]")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let run = await courier("batch", path, "--mode", "settle", "--concurrency", "16")
            #expect(run.status == 0)
            let lines = run.stdout.split(separator: "\n")
            #expect(lines.count == count)
            #expect(lines.indices.allSatisfy { lines[$0].hasPrefix("\($0) 200 ") && lines[$0].contains("/anything/\($0) ") })
            #expect(server.receivedRequests.count == count)
        }
    }

    @Test(arguments: [
        ("{}", "must hold a JSON array of requests"),
        ("[1", "is not valid JSON"),
        ("[{\"method\": \"GET\"}]", "request 0: \"url\" must be a non-empty string"),
        ("[{\"url\": \"http://127.0.0.1:9/\"}, {\"url\": \"/x\", \"heders\": {}}]", "request 1: unknown key \"heders\""),
        ("[{\"url\": \"/x\", \"headers\": {\"A\": 1}}]", "request 0: the value of header \"A\" must be text"),
        ("[{\"url\": \"/x\", \"body\": {}}]", "request 0: \"body\" must be text"),
    ])
    func invalidFilesAreRejectedWithTheirProblem(json: String, problem: String) async throws {
        let path = try batchFile(json)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = await courier("batch", path)
        #expect(run.status == 2)
        #expect(run.stderr.contains(problem), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func missingFileIsAReadErrorAndBadConcurrencyInvalidInput() async throws {
        let missing = await courier("batch", "/nonexistent/requests.json")
        #expect(missing.status == 26)
        #expect(missing.stderr.contains("cannot be read"))
        let path = try batchFile("[]")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let zero = await courier("batch", path, "--concurrency", "0")
        #expect(zero.status == 2)
        let empty = await courier("batch", path)
        #expect(empty.status == 0 && empty.stdout.isEmpty)
    }
}
