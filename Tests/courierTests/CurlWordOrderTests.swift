import CourierTesting
import Foundation
import Testing

@testable import courier

/// curl's word order: `courier OPTIONS… URL` is `courier fetch OPTIONS… URL`, as a curl user
/// types it.
@Suite("courier OPTIONS… URL, in curl's order")
struct CurlWordOrderTests {
    @Test("-d sends a form POST")
    func data() async throws {
        try await withServer { server in
            let run = await courier("-d", "a=1", server.url("/post").absoluteString)
            #expect(run.status == 0, "\(run.stderr)")
            let received = try #require(server.receivedRequests.last)
            #expect(received.method == "POST")
            #expect(received.body == Array("a=1".utf8))
            #expect(received.header("Content-Type") == "application/x-www-form-urlencoded")
        }
    }

    @Test("-u answers the server's challenge")
    func user() async throws {
        try await withServer { server in
            let run = await courier("-u", "ada:secret", server.url("/basic-auth/ada/secret").absoluteString)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("\"authenticated\""))
        }
    }

    @Test("-I sends HEAD and prints the head")
    func head() async throws {
        try await withServer { server in
            let run = await courier("-I", server.url("/get").absoluteString)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.hasPrefix("HTTP/1.1 200"))
            #expect(server.receivedRequests.last?.method == "HEAD")
        }
    }

    @Test("-s -o FILE -w writes the body to the file and the status to stdout")
    func silentOutputWriteOut() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("body.json")
        try await withServer { server in
            let run = await courier("-s", "-o", file.path, "-w", "%{http_code}", server.url("/get").absoluteString)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == "200")
            let written = try String(contentsOf: file, encoding: .utf8)
            #expect(written.contains("\"url\""))
        }
    }

    @Test("-O writes the body under the URL's last segment in the current folder")
    func remoteName() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer { server in
            let run = await CourierCLI.$currentFolder.withValue({ folder.path }) { await courier(["-O", server.url("/json").absoluteString]) }
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("json").path))
        }
    }

    @Test("-b and -c read and write a cookie jar")
    func cookieJar() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let jar = folder.appendingPathComponent("jar.txt").path
        try await withServer { server in
            let set = await courier("-c", jar, server.url("/cookies/set?flavour=oat").absoluteString)
            #expect(set.status == 0, "\(set.stderr)")
            let sent = await courier("-b", jar, server.url("/cookies").absoluteString)
            #expect(sent.status == 0, "\(sent.stderr)")
            #expect(sent.stdout.contains("oat"))
        }
    }

    @Test("a URL without its scheme is written out as curl does")
    func bareHost() async throws {
        try await withServer { server in
            let run = await courier("-s", "localhost:\(server.port)/get")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(server.receivedRequests.last?.method == "GET")
        }
    }

    @Test("a command's name after options is not a URL, and a line without a URL is still refused", arguments: [["-s", "batch"], ["-d", "a=1"], ["-X", "POST", "fetch"]])
    func notAURL(arguments: [String]) async {
        let run = await courier(arguments)
        #expect(run.status == 2)
        #expect(run.stderr.contains("courier:"))
    }

    @Test("the root's own flags keep their meaning")
    func rootFlags() async {
        let version = await courier("--version")
        #expect(version.status == 0)
        #expect(!version.stdout.isEmpty)
        let help = await courier("--help")
        #expect(help.status == 0)
        #expect(help.stdout.contains("SUBCOMMANDS"))
    }
}
