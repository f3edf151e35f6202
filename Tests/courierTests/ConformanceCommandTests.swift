import CourierTesting
import Foundation
import Testing

/// The cases of the conformance suite of Swift's proposed standard HTTP client API, as a curl
/// user types them: `courier fetch` against the test server's `/conformance/` routes.
@Suite("courier fetch: the standard client API's conformance cases")
struct ConformanceCommandTests {
    /// The request as `/conformance/request` describes it.
    private struct Described: Decodable {
        let headers: [String: [String]]
        let body: String
        let method: String

        func values(_ name: String) -> [String] {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value ?? []
        }
    }

    @Test("every method gets an empty 200", arguments: ["GET", "PUT", "POST", "DELETE"])
    func ok(method: String) async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/conformance/200").absoluteString, "-X", method, "-w", "%{http_code}")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == "200")
        }
    }

    @Test("HEAD with a Content-Length prints the head and ends")
    func headWithContentLength() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/conformance/head_with_cl").absoluteString, "-I")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.hasPrefix("HTTP/1.1 200"))
            #expect(run.stdout.contains("Content-Length: 1000\r\n"))
            #expect(run.stdout.hasSuffix("\r\n\r\n"))
        }
    }

    @Test("a body is echoed, and 1 MB of it")
    func echo() async throws {
        try await withServer { server in
            let small = await courier("fetch", server.url("/conformance/echo").absoluteString, "--data-binary", "Hello World")
            #expect(small.status == 0, "\(small.stderr)")
            #expect(small.stdout == "Hello World")
            let folder = try scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("a.txt")
            try Data(repeating: UInt8(ascii: "A"), count: 1_000_000).write(to: file)
            let large = await courier("fetch", server.url("/conformance/echo").absoluteString, "--data-binary", "@" + file.path)
            #expect(large.status == 0, "\(large.stderr)")
            #expect(large.raw == Data(repeating: UInt8(ascii: "A"), count: 1_000_000))
        }
    }

    @Test("--compressed asks for each coding and prints the decoded body", arguments: ["gzip", "deflate", "brotli", "identity"])
    func codings(route: String) async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/conformance/" + route).absoluteString, "--compressed")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == "TEST\n")
        }
    }

    @Test("custom, empty and repeated fields reach the server as written")
    func requestFields() async throws {
        try await withServer { server in
            let run = await courier(
                "fetch", server.url("/conformance/request").absoluteString, "-H", "X-Foo: BARbaz", "-H", "X-Empty;", "-H", "X-Test: one", "-H", "X-Test: two"
            )
            #expect(run.status == 0, "\(run.stderr)")
            let described = try JSONDecoder().decode(Described.self, from: run.raw)
            #expect(described.values("X-Foo") == ["BARbaz"])
            #expect(described.values("X-Empty") == [""])
            #expect(described.values("X-Test") == ["one", "two"])
            #expect(described.method == "GET")
        }
    }

    @Test("both values of a repeated response field are printed")
    func responseFields() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/conformance/header_multivalue").absoluteString, "-i")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("X-Test: one\r\nX-Test: two\r\n"))
        }
    }

    @Test("301 and 308 are followed", arguments: ["301", "308"])
    func redirects(route: String) async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/conformance/" + route).absoluteString)
            #expect(run.status == 0, "\(run.stderr)")
            let described = try JSONDecoder().decode(Described.self, from: run.raw)
            #expect(described.method == "GET")
            #expect(described.body.isEmpty)
        }
    }

    @Test("a redirect loop exits as curl's too-many-redirects does")
    func redirectLoop() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/conformance/redirect_ping").absoluteString)
            #expect(run.status == 47, "\(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    @Test("a 404 and a status of 999 are printed as they came", arguments: [("404", "404"), ("999", "999")])
    func statuses(route: String, code: String) async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/conformance/" + route).absoluteString, "-i")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.hasPrefix("HTTP/1.1 \(code)"))
            let failing = await courier("fetch", server.url("/conformance/" + route).absoluteString, "--fail")
            #expect(failing.status == 22)
        }
    }

    @Test("a server that never answers, or stalls in its body, ends at --max-time with curl's timeout status")
    func stalls() async throws {
        try await withServer { server in
            let head = await courier("fetch", server.url("/conformance/stall").absoluteString, "--max-time", "1")
            #expect(head.status == 28, "\(head.stderr)")
            #expect(head.stdout.isEmpty)
            // The first 1,000 bytes must arrive before the limit, even on a machine the whole
            // suite loads (it once took the process more than a second to read them).
            let body = await courier("fetch", server.url("/conformance/stall_body").absoluteString, "--max-time", "5")
            #expect(body.status == 28, "\(body.stderr)")
            #expect(body.raw == Data(repeating: UInt8(ascii: "A"), count: 1000), "what arrived before the stall is printed")
        }
    }
}
