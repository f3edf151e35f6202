import CourierTesting
import Foundation
import Testing

/// Received trailers in `courier fetch`'s output: after the body with `--include`, as curl
/// prints them, and as `trailers` in the report.
@Suite("courier fetch shows trailers")
struct TrailerOutputTests {
    @Test("-i prints the trailers after the body, not with the head")
    func includeShowsThemAfterTheBody() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/trailers?X-Checksum=abc").absoluteString, "-i")
            #expect(run.status == 0, "\(run.stderr)")
            let body = try #require(run.stdout.range(of: "\"length\""))
            let trailer = try #require(run.stdout.range(of: "X-Checksum: abc\r\n"))
            #expect(body.lowerBound < trailer.lowerBound)
            #expect(run.stdout.hasSuffix("X-Checksum: abc\r\n"))
            let plain = await courier("fetch", server.url("/trailers?X-Checksum=abc").absoluteString)
            #expect(!plain.stdout.contains("X-Checksum"), "without -i only the body is printed")
        }
    }

    @Test("-i -o writes the head, the body and then the trailers to the file, as curl does")
    func includeWithAFile() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("body.json")
        try await withServer { server in
            let url = server.url("/trailers?X-Checksum=abc").absoluteString
            for arguments in [["fetch", url, "-i", "-o", file.path], ["fetch", url, "-i", "-o", file.path, "--cache", folder.appendingPathComponent("cache").path]] {
                let run = await courier(arguments)
                #expect(run.status == 0, "\(run.stderr)")
                #expect(run.stdout.isEmpty, "\(run.stdout)")
                let written = try String(contentsOf: file, encoding: .utf8)
                #expect(written.hasPrefix("HTTP/1.1 200"), "\(written)")
                let body = try #require(written.range(of: "\"length\""))
                let trailer = try #require(written.range(of: "X-Checksum: abc\r\n"))
                #expect(body.lowerBound < trailer.lowerBound)
                #expect(written.hasSuffix("X-Checksum: abc\r\n"))
                try FileManager.default.removeItem(at: file)
            }
        }
    }

    @Test("the report lists the trailers last, an empty list when none came")
    func report() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/trailers?X-Checksum=abc&Grpc-Status=0").absoluteString, "--report", "json")
            #expect(run.status == 0, "\(run.stderr)")
            let line = run.stdout.trimmingCharacters(in: .newlines)
            #expect(line.hasSuffix(",\"trailers\":[[\"X-Checksum\",\"abc\"],[\"Grpc-Status\",\"0\"]]}"))
            let object = try courierTests.report(line)
            #expect(object["trailers"] as? [[String]] == [["X-Checksum", "abc"], ["Grpc-Status", "0"]])
            let none = await courier("fetch", server.url("/get").absoluteString, "--report", "json")
            #expect(none.stdout.trimmingCharacters(in: .newlines).hasSuffix(",\"trailers\":[]}"))
        }
    }
}
