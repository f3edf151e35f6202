import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// The parts the test server's `/multipart` route parsed, from a `--report json` line.
private func parts(_ run: (status: Int32, stdout: String, stderr: String, raw: Data)) throws -> [[String: Any]] {
    let line = try report(run.stdout.trimmingCharacters(in: .newlines))
    let body = try #require(Data(base64Encoded: line["body_base64"] as? String ?? ""))
    let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    return try #require(object["parts"] as? [[String: Any]])
}

@Suite("courier fetch --file")
struct FetchFileCommandTests {
    /// A folder of temporary files, removed when the test ends.
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cli-\(UUID().uuidString)")

    private func file(_ name: String, _ contents: String) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    @Test func filesAndFormFieldsGoInCommandLineOrder() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let notes = try file("notes.txt", "first line\n")
        let data = try file("data.bin", "\u{1}\u{2}")
        try await withServer { server in
            let run = await courier(
                "fetch", server.url("/multipart").absoluteString,
                "--form", "title=Report", "--file", "notes=@\(notes)", "--form", "after=1",
                "--file", "blob=@\(data);type=application/x-custom;filename=renamed.dat", "--report", "json"
            )
            #expect(run.status == 0, "\(run.stderr)")
            let received = try #require(server.receivedRequests.last)
            #expect(received.method == "POST")
            #expect(received.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=courier-") == true)
            #expect(received.header("Content-Length") == String(received.body.count))
            let parsed = try parts(run)
            #expect(parsed.map { $0["name"] as? String } == ["title", "notes", "after", "blob"])
            #expect(parsed[0]["content"] as? String == "Report")
            #expect(parsed[1]["filename"] as? String == "notes.txt")
            #expect(parsed[1]["content_type"] as? String == "text/plain")
            #expect(parsed[1]["content"] as? String == "first line\n")
            #expect(parsed[2]["content"] as? String == "1")
            #expect(parsed[3]["filename"] as? String == "renamed.dat")
            #expect(parsed[3]["content_type"] as? String == "application/x-custom")
            #expect(parsed[3]["size"] as? Int == 2)
        }
    }

    @Test func theEqualsFormAndAChosenMethodWork() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = try file("photo.jpg", "jpeg")
        try await withServer { server in
            let run = await courier("fetch", server.url("/multipart").absoluteString, "-X", "PUT", "--file=photo=@\(photo)", "--report", "json")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(server.receivedRequests.last?.method == "PUT")
            let parsed = try parts(run)
            #expect(parsed.count == 1)
            #expect(parsed.first?["content_type"] as? String == "image/jpeg")
        }
    }

    @Test(arguments: [
        (["--file", "avatar"], "is not name=@PATH"),
        (["--file", "=@/tmp/x"], "is not name=@PATH"),
        (["--file", "avatar=FILE"], "must be @PATH"),
        (["--file", "avatar=@"], "the path is empty"),
        (["--file", "avatar=@/nonexistent/courier/file.png"], "cannot be read"),
        (["--file", "avatar=@FILE;colour=red"], "unknown or repeated parameter 'colour'"),
        (["--file", "avatar=@FILE;type="], "is not type=MIME"),
        (["--file", "avatar=@FILE;type=a;type=b"], "unknown or repeated parameter 'type'"),
        (["--file", "avatar=@\(FileManager.default.temporaryDirectory.path)"], "not a regular file"),
        (["--file", "avatar=@FILE", "--data", "x"], "use only one of"),
    ])
    func badFileValuesFailWithOneLine(arguments: [String], problem: String) async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let readable = try file("readable.txt", "text")
        let arguments = arguments.map { $0.replacingOccurrences(of: "FILE", with: readable) }
        let (output, captured) = Output.capturing()
        let status = await CourierCLI.run(["fetch", "http://127.0.0.1:9/upload"] + arguments, output: output)
        // A file that cannot be read is curl's read error; the rest are usage errors.
        let expected: Int32 = problem == "cannot be read" || problem == "not a regular file" ? 26 : 2
        #expect(status == expected, "\(arguments) → \(status): \(captured.stderr)")
        let lines = captured.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("courier: ") == true)
        #expect(captured.stderr.contains(problem), "\(captured.stderr)")
    }

    @Test func fieldOrderFollowsTheCommandLineEvenWhenFilesComeFirst() throws {
        let order = MultipartOptions.order(in: ["fetch", "u", "--file", "a=@x", "--form=b=1", "-H", "X: y", "--form", "c=2", "--", "--file"])
        #expect(order == [.file, .form, .form])
    }
}
