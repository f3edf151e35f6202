import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// Runs `body` with a new scratch folder (removed afterwards) and a test server.
private func withFolderAndServer(_ body: (URL, TestServer) async throws -> Void) async throws {
    let folder = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try await withServer { server in try await body(folder, server) }
}

/// The `Cookie` header the server's `/cookies` route saw, from its JSON answer; `nil` when
/// `stdout` is not that answer.
private func cookieHeader(_ stdout: String) -> String? {
    let object = try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
    return object?["header"] as? String
}

/// The permission bits of the file at `path`.
private func permissions(of path: String) throws -> Int? {
    (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
}

@Suite("courier -b/--cookie, -c/--cookie-jar and --cookie-json")
struct CookieFileCommandTests {
    @Test func cookiesGivenOnTheCommandLineGoToTheRequestsOrigin() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/cookies").absoluteString, "-b", "a=1; b=2", "--cookie", "c=3", "-H", "Cookie: own=0")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(cookieHeader(run.stdout) == "own=0; a=1; b=2; c=3")
        }
    }

    @Test func cookiesGivenOnTheCommandLineFollowOnlySameOriginRedirects() async throws {
        try await withServer { server in
            try await withServer { other in
                let same = await courier("fetch", server.url("/redirect-to?url=/cookies").absoluteString, "-b", "a=1")
                #expect(cookieHeader(same.stdout) == "a=1")
                let target = other.url("/cookies").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let crossed = await courier("fetch", server.url("/redirect-to?url=\(target)").absoluteString, "-b", "a=1")
                #expect(crossed.status == 0, "\(crossed.stderr)")
                #expect(cookieHeader(crossed.stdout) == "")
                #expect(other.receivedRequests.allSatisfy { $0.header("Cookie") == nil })
            }
        }
    }

    @Test(arguments: ["a=1\r\nX-Injected: yes", "=value", "a=\u{0}"])
    func badCommandLineCookiesAreInvalidInput(_ cookie: String) async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/cookies").absoluteString, "-b", cookie)
            #expect(run.status == 2, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("courier: -b "))
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func theJarRoundTripKeepsSessionCookies() async throws {
        try await withFolderAndServer { folder, server in
            let jar = folder.appendingPathComponent("jar.txt").path
            let first = await courier("fetch", server.url("/cookies/set?session=s1&other=o1").absoluteString, "-b", jar, "-c", jar)
            #expect(first.status == 0, "\(first.stderr)")
            let text = try String(contentsOfFile: jar, encoding: .utf8)
            #expect(text.hasPrefix("# Netscape HTTP Cookie File\n"))
            #expect(text.contains("127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\ts1\n"))
            #expect(try permissions(of: jar) == 0o600)
            // A second run deletes one cookie and keeps the session; a third only reads the jar.
            for options in [["-b", jar, "-c", jar], ["--cookie", jar]] {
                let path = options.count == 4 ? "/cookies/delete?other" : "/cookies"
                let run = await courier(["fetch", server.url(path).absoluteString] + options)
                #expect(cookieHeader(run.stdout) == "session=s1", "\(options)")
            }
        }
    }

    @Test func cookieJarAloneDoesNotReadItsFile() async throws {
        try await withFolderAndServer { folder, server in
            let jar = folder.appendingPathComponent("jar.txt")
            try Data("127.0.0.1\tFALSE\t/\tFALSE\t0\told\t1\n".utf8).write(to: jar)
            let run = await courier("fetch", server.url("/cookies/set?new=2").absoluteString, "-c", jar.path)
            #expect(cookieHeader(run.stdout) == "new=2")
            let text = try String(contentsOf: jar, encoding: .utf8)
            #expect(text.contains("\tnew\t2\n") && !text.contains("\told\t"))
        }
    }

    @Test func curlsFileIsReadAndAMissingOneIsIgnored() async throws {
        try await withFolderAndServer { folder, server in
            let file = folder.appendingPathComponent("curl-cookies.txt")
            let lines = [
                "# Netscape HTTP Cookie File", "# https://curl.se/docs/http-cookies.html", "",
                "127.0.0.1\tFALSE\t/\tFALSE\t0\tplain\tp", "#HttpOnly_127.0.0.1\tFALSE\t/cookies\tFALSE\t9999999999\thidden\th",
                "127.0.0.1\tFALSE\t/\tTRUE\t0\tsecure\tnot-over-http", "127.0.0.1\tFALSE\t/\tFALSE\t1\texpired\tx",
                "127.0.0.1\tFALSE\t/\tFALSE\tsoon\tbadexpiry\tx", "not a cookie line", "# plain\tcomment",
            ]
            try Data(lines.joined(separator: "\r\n").utf8).write(to: file)
            let missing = folder.appendingPathComponent("missing.txt").path
            let run = await courier("fetch", server.url("/cookies").absoluteString, "-b", file.path, "-b", missing)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(cookieHeader(run.stdout) == "hidden=h; plain=p")
            #expect(!FileManager.default.fileExists(atPath: missing))
        }
    }

    @Test func courierJSONFilesAreReadByCookieAndWrittenByCookieJSON() async throws {
        try await withFolderAndServer { folder, server in
            let json = folder.appendingPathComponent("cookies.json").path
            let set = "Set-Cookie=" + "kept=yes; Max-Age=3600; Path=/".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let first = await courier("fetch", server.url("/response-headers?\(set)").absoluteString, "--cookie-json", json)
            #expect(first.status == 0, "\(first.stderr)")
            let mode = try permissions(of: json)
            #expect(mode == 0o600)
            let second = await courier("fetch", server.url("/cookies/set?session=1").absoluteString, "--cookie-json", json)
            #expect(cookieHeader(second.stdout) == "kept=yes; session=1")
            let saved = try String(contentsOfFile: json, encoding: .utf8)
            #expect(!saved.contains("session"))
            let read = await courier("fetch", server.url("/cookies").absoluteString, "-b", json)
            #expect(cookieHeader(read.stdout) == "kept=yes")
        }
    }

    @Test func aCorruptJSONFileIsAReadError() async throws {
        try await withFolderAndServer { folder, server in
            let file = folder.appendingPathComponent("bad.json")
            try Data("{\"format\": 1, \"cookies\": [1,2".utf8).write(to: file)
            for option in ["--cookie-json", "-b"] {
                let run = await courier("fetch", server.url("/cookies").absoluteString, option, file.path)
                #expect(run.status == 26, "\(option): \(run.stderr)")
                #expect(run.stderr.hasPrefix("courier: \(option) "), "\(run.stderr)")
            }
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func aHugeCookieFileIsRefused() async throws {
        try await withFolderAndServer { folder, server in
            let file = folder.appendingPathComponent("huge.txt")
            try Data(repeating: UInt8(ascii: "#"), count: (4 << 20) + 1).write(to: file)
            let run = await courier("fetch", server.url("/cookies").absoluteString, "-b", file.path)
            #expect(run.status == 26)
            #expect(run.stderr.contains("larger than"), "\(run.stderr)")
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func cookieJarDashWritesTheJarToStdoutAfterTheBody() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/cookies/set?s=1").absoluteString, "-c", "-")
            #expect(run.status == 0, "\(run.stderr)")
            let parts = run.stdout.components(separatedBy: NetscapeCookieFormat.header)
            #expect(parts.count == 2)
            #expect(cookieHeader(parts[0]) == "s=1")
            #expect(parts[1].hasSuffix("127.0.0.1\tFALSE\t/\tFALSE\t0\ts\t1\n"))
        }
    }

    @Test func givingBothJarFormatsIsInvalidInput() async {
        let run = await courier("fetch", "http://127.0.0.1:9/", "-c", "a.txt", "--cookie-json", "b.json")
        #expect(run.status == 2)
        #expect(run.stderr.contains("not both"))
    }

    @Test func downloadAndBatchUseTheCookieOptions() async throws {
        try await withFolderAndServer { folder, server in
            let jar = folder.appendingPathComponent("jar.txt").path
            let batch = folder.appendingPathComponent("requests.json")
            try Data("[{\"url\": \"\(server.url("/cookies/set?from=batch").absoluteString)\"}]".utf8).write(to: batch)
            let batchRun = await courier("batch", batch.path, "-c", jar)
            #expect(batchRun.status == 0, "\(batchRun.stderr)")
            #expect(try String(contentsOfFile: jar, encoding: .utf8).contains("\tfrom\tbatch\n"))
            let output = folder.appendingPathComponent("cookies.json").path
            let download = await courier("download", server.url("/cookies").absoluteString, "-b", jar, "-b", "extra=1", "-o", output, "-s")
            #expect(download.status == 0, "\(download.stderr)")
            let body = try String(contentsOfFile: output, encoding: .utf8)
            #expect(cookieHeader(body) == "extra=1; from=batch")
        }
    }
}
