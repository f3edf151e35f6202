import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// Runs `courier ARGS…` in-process with `input` as its standard input.
private func courier(stdin input: String, _ arguments: String...) async -> (status: Int32, stdout: String, stderr: String, raw: Data) {
    await CourierCLI.$standardInput.withValue({ Data(input.utf8) }) {
        await CourierCLI.$standardInputPieces.withValue(.bytes { Data(input.utf8) }) { await courier(arguments) }
    }
}

/// Runs `courier ARGS…` in-process with `folder` as the current folder of `-O`.
private func courier(in folder: URL, _ arguments: String...) async -> (status: Int32, stdout: String, stderr: String, raw: Data) {
    await CourierCLI.$currentFolder.withValue({ folder.path }) { await courier(arguments) }
}

/// Writes `contents` to `name` in `folder`; returns its path.
private func write(_ contents: String, to name: String, in folder: URL) throws -> String {
    let file = folder.appendingPathComponent(name)
    try Data(contents.utf8).write(to: file)
    return file.path
}

/// Runs `body` with a new scratch folder (removed afterwards) and a test server.
private func withFolderAndServer(_ body: (URL, TestServer) async throws -> Void) async throws {
    let folder = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try await withServer { server in try await body(folder, server) }
}

@Suite("courier fetch: curl's spellings, with curl's meaning")
struct CurlSpellingsTests {
    @Test func fIsFailInCurlsWordOrderAndHTTPiesFormInItsOwn() async throws {
        try await withServer { server in
            let missing = server.url("/status/404").absoluteString
            for line in [["-fsSL", missing], ["-f", "-s", missing], ["fetch", "-f", "-s", missing], ["-sf", missing]] {
                let run = await courier(line)
                #expect(run.status == 22 && run.stdout.isEmpty, "\(line): \(run.status) \(run.stdout)")
            }
            // HTTPie's order: the fields go as a form.
            let form = await courier(server.url("/anything").absoluteString, "a=1", "-f")
            #expect(form.status == 0, "\(form.stderr)")
            let request = try #require(server.receivedRequests.last)
            #expect(request.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true)
            #expect(request.bodyString == "a=1")
        }
    }

    @Test func aLineInCurlsOrderThatFetchRefusesIsExplainedByFetch() async throws {
        try await withServer { server in
            let url = server.url("/get").absoluteString
            let unknown = await courier("-s", "-C", "-", url)
            #expect(unknown.status == 2 && unknown.stderr.contains("Unknown option '-C'"), "\(unknown.stderr)")
            let refused = await courier("-s", "-k", url)
            #expect(refused.status == 2 && refused.stderr.contains("-k/--insecure is refused"), "\(refused.stderr)")
            let range = await courier("-s", "-m", "0", url)
            #expect(range.status == 2 && range.stderr.contains("'0' is invalid for '-m <seconds>'"), "\(range.stderr)")
            #expect(server.receivedRequests.isEmpty)
            // curl's -m is --max-time.
            let timed = await courier("-s", "-m", "5", url)
            #expect(timed.status == 0 && server.receivedRequests.count == 1, "\(timed.stderr)")
        }
    }

    @Test func dumpHeaderWritesTheHeadToItsFileOrBeforeTheBody() async throws {
        try await withFolderAndServer { folder, server in
            let url = server.url("/get").absoluteString
            let toStdout = await courier("-s", "-D", "-", url)
            #expect(toStdout.status == 0 && toStdout.stdout.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(toStdout.stdout)")
            let separator = try #require(toStdout.stdout.range(of: "\r\n\r\n"))
            #expect(toStdout.stdout[separator.upperBound...].hasPrefix("{"))

            let headers = folder.appendingPathComponent("headers.txt").path
            let body = folder.appendingPathComponent("body.json").path
            for line in [["-s", "-D", headers, "-o", body, url], ["fetch", url, "-D", headers, "-o", body, "--report", "json"]] {
                try? FileManager.default.removeItem(atPath: headers)
                let run = await courier(line)
                #expect(run.status == 0, "\(line): \(run.stderr)")
                let written = try String(contentsOfFile: headers, encoding: .utf8)
                #expect(written.hasPrefix("HTTP/1.1 200 OK\r\n") && written.hasSuffix("\r\n\r\n"), "\(written)")
                let mode = try FileManager.default.attributesOfItem(atPath: headers)[.posixPermissions] as? Int
                #expect(mode == 0o600)
            }
            #expect(try String(contentsOfFile: body, encoding: .utf8).hasPrefix("{"))

            let unwritable = await courier("-s", "-D", folder.appendingPathComponent("missing/headers.txt").path, url)
            #expect(unwritable.status == 23)
        }
    }

    @Test func createDirsMakesTheFoldersOfTheOutputForItsOwnerAlone() async throws {
        try await withFolderAndServer { folder, server in
            let url = server.url("/get").absoluteString
            let file = folder.appendingPathComponent("a/b/page.json").path
            let without = await courier("-s", "-o", file, url)
            #expect(without.status == 23 && !FileManager.default.fileExists(atPath: file))
            let run = await courier("-s", "--create-dirs", "-o", file, url)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix("{"))
            for made in ["a", "a/b"] {
                let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(made).path)[.posixPermissions] as? Int
                #expect(mode == 0o700, "\(made)")
            }
        }
    }

    @Test func outputDirHoldsTheRemoteNameAndARelativeOutput() async throws {
        try await withFolderAndServer { folder, server in
            let url = server.url("/get").absoluteString
            let missing = folder.appendingPathComponent("missing").path
            let refused = await courier("-s", "--output-dir", missing, "-O", url)
            #expect(refused.status == 23 && !FileManager.default.fileExists(atPath: missing))
            let named = await courier("-s", "--output-dir", folder.path, "-O", url)
            #expect(named.status == 0 && FileManager.default.fileExists(atPath: folder.appendingPathComponent("get").path), "\(named.stderr)")
            let nested = await courier("-s", "--create-dirs", "--output-dir", folder.appendingPathComponent("x").path, "-o", "y/z.json", url)
            #expect(nested.status == 0, "\(nested.stderr)")
            let text = try String(contentsOfFile: folder.appendingPathComponent("x/y/z.json").path, encoding: .utf8)
            #expect(text.hasPrefix("{"))
            let absolute = folder.appendingPathComponent("absolute.json").path
            let given = await courier("-s", "--output-dir", missing, "-o", absolute, url)
            #expect(given.status == 0 && FileManager.default.fileExists(atPath: absolute), "an absolute -o path is used as given")
        }
    }

    @Test func rangeAsksForTheBytesGivenAsCurlDoes() async throws {
        try await withServer { server in
            let url = server.url("/get").absoluteString
            for (given, sent) in [("0-1", "bytes=0-1"), ("5-", "bytes=5-"), ("-3", "bytes=-3"), ("0-0,-1", "bytes=0-0,-1")] {
                let run = await courier("-s", "-r", given, url)
                #expect(run.status == 0, "\(run.stderr)")
                #expect(server.receivedRequests.last?.header("Range") == sent)
            }
            let sent = server.receivedRequests.count
            for bad in ["", "-", "a-b", "1-2\r\nX: y", "0-1,", "1"] {
                let run = await courier("-s", "-r", bad, url)
                #expect(run.status == 2, "-r \(bad): \(run.status)")
            }
            #expect(server.receivedRequests.count == sent)
            let given = await courier("-s", "-r", "0-1", "-H", "Range: bytes=2-3", url)
            #expect(given.status == 0 && server.receivedRequests.last?.headerValues("Range") == ["bytes=2-3"])
        }
    }

    @Test func getSendsTheDataOptionsInTheQueryAsCurlDoes() async throws {
        try await withServer { server in
            let run = await courier("-s", "-G", "-d", "a=1", "--data-urlencode", "q=x y", server.url("/anything").absoluteString)
            #expect(run.status == 0, "\(run.stderr)")
            let request = try #require(server.receivedRequests.last)
            #expect(request.method == "GET" && request.uri == "/anything?a=1&q=x%20y" && request.body.isEmpty, "\(request.uri)")

            let appended = await courier("-s", "--get", "-d", "b=2", server.url("/anything?z=0").absoluteString)
            #expect(appended.status == 0 && server.receivedRequests.last?.uri == "/anything?z=0&b=2")

            let head = await courier("-s", "-I", "-G", "-d", "c=3", server.url("/anything").absoluteString)
            #expect(head.status == 0 && server.receivedRequests.last?.method == "HEAD" && server.receivedRequests.last?.uri == "/anything?c=3")

            let sent = server.receivedRequests.count
            let both = await courier("-s", "-G", "-F", "a=1", server.url("/anything").absoluteString)
            #expect(both.status == 2 && both.stderr.contains("-G/--get"), "\(both.stderr)")
            #expect(server.receivedRequests.count == sent)
        }
    }

    @Test func theHeadGoesWhereTheBodyGoesAsInCurl() async throws {
        try await withFolderAndServer { folder, server in
            let url = server.url("/get").absoluteString
            let headFile = folder.appendingPathComponent("head.txt").path
            let head = await courier("-s", "-I", "-o", headFile, url)
            #expect(head.status == 0 && head.stdout.isEmpty, "\(head.stdout) \(head.stderr)")
            let written = try String(contentsOfFile: headFile, encoding: .utf8)
            #expect(written.hasPrefix("HTTP/1.1 200 OK\r\n") && written.hasSuffix("\r\n\r\n"), "\(written)")

            let code = await courier("-sI", "-o", "/dev/null", "-w", "%{http_code}", url)
            #expect(code.status == 0 && code.stdout == "200", "\(code.stdout)")

            let both = folder.appendingPathComponent("both.txt").path
            let included = await courier("-s", "-i", "-o", both, url)
            #expect(included.status == 0 && included.stdout.isEmpty, "\(included.stdout)")
            let text = try String(contentsOfFile: both, encoding: .utf8)
            let separator = try #require(text.range(of: "\r\n\r\n"))
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(text[separator.upperBound...].hasPrefix("{"), "\(text)")

            // --fail on a 404: no body, but the head that -i shows is kept, and the status is 22.
            let failed = folder.appendingPathComponent("failed.txt").path
            let missing = await courier("-s", "--fail", "-i", "-o", failed, server.url("/status/404").absoluteString)
            #expect(missing.status == 22 && missing.stdout.isEmpty)
            let kept = try String(contentsOfFile: failed, encoding: .utf8)
            #expect(kept.hasPrefix("HTTP/1.1 404 Not Found\r\n") && kept.hasSuffix("\r\n\r\n"), "\(kept)")

            // Without -i or -I, nothing is written for a body --fail leaves out.
            let nothing = folder.appendingPathComponent("nothing.txt").path
            let refused = await courier("-s", "--fail", "-o", nothing, server.url("/status/404").absoluteString)
            #expect(refused.status == 22 && !FileManager.default.fileExists(atPath: nothing))
        }
    }

    @Test func dataOptionsJoinWithAmpersandInCommandLineOrderAsAForm() async throws {
        try await withFolderAndServer { folder, server in
            let lines = try write("one\r\ntwo\n", to: "lines.txt", in: folder)
            let raw = try write("x\r\ny\n", to: "raw.bin", in: folder)
            let run = await courier(
                "fetch", server.url("/anything").absoluteString, "--data-urlencode", "q=a b&c/é", "-d", "@\(lines)",
                "--data-binary", "@\(raw)", "--data", "k=v", "--data-urlencode", "=x y"
            )
            #expect(run.status == 0, "\(run.stderr)")
            let request = try #require(server.receivedRequests.last)
            #expect(request.method == "POST")
            #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
            #expect(request.bodyString == "q=a%20b%26c%2F%C3%A9&onetwo&x\r\ny\n&k=v&x%20y")
        }
    }

    @Test func dataKeepsAContentTypeGivenWithHAndAnExplicitMethod() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/anything").absoluteString, "-d", "{}", "-H", "Content-Type: application/json", "-X", "PATCH")
            #expect(run.status == 0, "\(run.stderr)")
            let request = try #require(server.receivedRequests.last)
            #expect(request.method == "PATCH")
            #expect(request.headerValues("Content-Type") == ["application/json"])
            #expect(request.bodyString == "{}")
        }
    }

    @Test func dataFromStandardInput() async throws {
        try await withServer { server in
            let text = await courier(stdin: "a=1\nb=2\n", "fetch", server.url("/post").absoluteString, "-d", "@-")
            #expect(text.status == 0, "\(text.stderr)")
            #expect(server.receivedRequests.last?.bodyString == "a=1b=2")
            let binary = await courier(stdin: "a=1\nb=2\n", "fetch", server.url("/post").absoluteString, "--data-binary", "@-")
            #expect(binary.status == 0, "\(binary.stderr)")
            #expect(server.receivedRequests.last?.bodyString == "a=1\nb=2\n")
        }
    }

    @Test func dataURLEncodeReadsNamedAndUnnamedFiles() async throws {
        try await withFolderAndServer { folder, server in
            let file = try write("1 + 1\n", to: "sum.txt", in: folder)
            let run = await courier(
                "fetch", server.url("/post").absoluteString, "--data-urlencode", "sum@\(file)", "--data-urlencode", "@\(file)",
                "--data-urlencode", "plain text"
            )
            #expect(run.status == 0, "\(run.stderr)")
            #expect(server.receivedRequests.last?.bodyString == "sum=1%20%2B%201%0A&1%20%2B%201%0A&plain%20text")
        }
    }

    @Test func formSendsMultipartWithFieldsFilesAndValuesReadFromFiles() async throws {
        try await withFolderAndServer { folder, server in
            let notes = try write("file text", to: "notes.md", in: folder)
            let value = try write("from a file", to: "value.txt", in: folder)
            let run = await courier(
                "fetch", server.url("/anything").absoluteString, "-F", "title=Report", "-F", "notes=@\(notes);type=text/plain;filename=n.txt",
                "--form", "quoted=<\(value)"
            )
            #expect(run.status == 0, "\(run.stderr)")
            let request = try #require(server.receivedRequests.last)
            #expect(request.method == "POST")
            #expect(request.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
            let body = request.bodyString
            #expect(body.contains("name=\"title\"\r\n\r\nReport\r\n"))
            #expect(body.contains("name=\"notes\"; filename=\"n.txt\"\r\nContent-Type: text/plain\r\n\r\nfile text\r\n"))
            #expect(body.contains("name=\"quoted\"\r\n\r\nfrom a file\r\n"))
            let title = try #require(body.range(of: "name=\"title\"")).lowerBound
            let file = try #require(body.range(of: "name=\"notes\"")).lowerBound
            let quoted = try #require(body.range(of: "name=\"quoted\"")).lowerBound
            #expect(title < file && file < quoted)
        }
    }

    @Test func userAgentRefererAndUserAreHeadersAndCredentials() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/headers").absoluteString, "-A", "agent/1", "-e", "http://from.example/")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(server.receivedRequests.last?.headerValues("User-Agent") == ["agent/1"])
            #expect(server.receivedRequests.last?.header("Referer") == "http://from.example/")
            let overridden = await courier("fetch", server.url("/headers").absoluteString, "-A", "agent/1", "-H", "User-Agent: mine")
            #expect(overridden.status == 0)
            #expect(server.receivedRequests.last?.headerValues("User-Agent") == ["mine"])
            let authorized = await courier("fetch", server.url("/basic-auth/ada/pw").absoluteString, "-u", "ada:pw", "--fail")
            #expect(authorized.status == 0, "\(authorized.stderr)")
            let refused = await courier("fetch", server.url("/basic-auth/ada/pw").absoluteString, "-u", "ada:wrong")
            #expect(refused.status == ExitStatus.success.rawValue, "\(refused.stderr)")
        }
    }

    @Test func headSendsHEADAndPrintsOnlyTheHead() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/response-headers?X-Shown=yes").absoluteString, "-I")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(server.receivedRequests.last?.method == "HEAD")
            #expect(run.stdout.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(run.stdout.contains("X-Shown: yes\r\n"))
            #expect(run.stdout.hasSuffix("\r\n\r\n"))
            let withBody = await courier("fetch", server.url("/post").absoluteString, "-I", "-d", "x")
            #expect(withBody.status == 2)
            #expect(withBody.stderr.contains("-I/--head"))
        }
    }

    @Test func locationIsAcceptedAndMaxTimeIsTheTotalTimeout() async throws {
        try await withServer { server in
            let followed = await courier("fetch", server.url("/redirect/2").absoluteString, "-L", "--report", "json")
            #expect(followed.status == 0)
            let redirects = try report(followed.stdout.trimmingCharacters(in: .newlines))["redirects"] as? Int
            #expect(redirects == 2)
            let both = await courier("fetch", server.url("/redirect/2").absoluteString, "-L", "--no-follow")
            #expect(both.status == 2)
            let timedOut = await courier("fetch", server.url("/gate/silent").absoluteString, "--max-time", "0.2")
            #expect(timedOut.status == ExitStatus.timeout.rawValue)
        }
        for value in ["0", "-1", "nan", "31536001"] {
            let run = await courier("fetch", "http://127.0.0.1:9/", "--max-time", value)
            #expect(run.status == 2, "--max-time \(value)")
            #expect(run.stderr.contains("--max-time"), "\(run.stderr)")
        }
    }

    @Test func silentHidesTheErrorLineAndShowErrorBringsItBack() async throws {
        // A port bound but not listened on refuses connections; a stopped server's port could
        // be taken by another test's server meanwhile.
        let reserved = try ReservedPort()
        defer { withExtendedLifetime(reserved) {} }
        let url = reserved.url("/get").absoluteString
        let silent = await courier("fetch", url, "-s")
        #expect(silent.status == ExitStatus.couldNotConnect.rawValue)
        #expect(silent.stderr.isEmpty)
        let shown = await courier("fetch", url, "-s", "-S")
        #expect(shown.status == ExitStatus.couldNotConnect.rawValue)
        #expect(shown.stderr.hasPrefix("courier: could not connect to 127.0.0.1:\(reserved.port): connection refused"), "\(shown.stderr)")
        let usage = await courier("fetch", url, "-s", "-H", "no colon")
        #expect(usage.status == 2)
        #expect(usage.stderr.hasPrefix("courier: "))
        let unreadable = await courier("fetch", url, "-s", "--data", "@/nonexistent/courier/file")
        #expect(unreadable.status == ExitStatus.readError.rawValue)
        #expect(unreadable.stderr.isEmpty)
    }

    @Test func proxyHasItsShortSpelling() async throws {
        try await withServer { server in
            try await ForwardProxy.withProxy { proxy in
                let run = await courier("fetch", server.url("/get").absoluteString, "-x", "http://127.0.0.1:\(proxy.port)")
                #expect(run.status == 0, "\(run.stderr)")
                #expect(proxy.tunnels >= 1)
            }
        }
    }

    @Test func failLeavesTheBodyOutAndFailWithBodyWritesIt() async throws {
        try await withServer { server in
            let url = server.url("/no-such-route").absoluteString
            let fail = await courier("fetch", url, "--fail")
            #expect(fail.status == ExitStatus.httpError.rawValue)
            #expect(fail.stdout.isEmpty)
            let included = await courier("fetch", url, "--fail", "-i")
            #expect(included.stdout.hasPrefix("HTTP/1.1 404"))
            #expect(!included.stdout.contains("no route for"))
            let withBody = await courier("fetch", url, "--fail-with-body")
            #expect(withBody.status == ExitStatus.httpError.rawValue)
            #expect(withBody.stdout.contains("no route for /no-such-route"))
            #expect(withBody.stderr.hasPrefix("courier: 127.0.0.1:\(server.port) answered 404"))
            let both = await courier("fetch", url, "--fail", "--fail-with-body")
            #expect(both.status == 2)
            let fine = await courier("fetch", server.url("/get").absoluteString, "--fail-with-body")
            #expect(fine.status == 0)
        }
    }

    @Test func remoteNameWritesTheURLsFileNameInTheCurrentFolder() async throws {
        try await withFolderAndServer { folder, server in
            let run = await courier(in: folder, "fetch", server.url("/bytes/300?seed=4").absoluteString, "-O")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.isEmpty)
            let saved = try Data(contentsOf: folder.appendingPathComponent("300"))
            #expect(saved == Data(TestServer.bytes(count: 300, seed: 4)))
            let noName = await courier(in: folder, "fetch", server.url("/").absoluteString, "-O")
            #expect(noName.status == 23)
            #expect(noName.stderr.contains("-o PATH"))
            let onlyJ = await courier(in: folder, "fetch", server.url("/get").absoluteString, "-J")
            #expect(onlyJ.status == 2)
        }
    }

    @Test func remoteHeaderNameTakesASafeNameFromContentDisposition() async throws {
        try await withFolderAndServer { folder, server in
            let url = server.url("/response-headers?Content-Disposition=attachment%3B%20filename%3D%22..%2F..%2Fevil.txt%22").absoluteString
            let run = await courier(in: folder, "fetch", url, "-O", "-J")
            #expect(run.status == 0, "\(run.stderr)")
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(names == ["evil.txt"])
            let written = try String(contentsOf: folder.appendingPathComponent("evil.txt"), encoding: .utf8)
            #expect(written.contains("Content-Disposition"))
            let again = await courier(in: folder, "fetch", url, "-O", "-J")
            #expect(again.status == 23)
            #expect(again.stderr.contains("exists already"))
            let after = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(after == ["evil.txt"])
        }
    }

    @Test func uploadFilePutsTheBytesAndNamesAURLEndingInASlash() async throws {
        try await withFolderAndServer { folder, server in
            let file = try write("line\r\nraw\n", to: "up load.txt", in: folder)
            let run = await courier("fetch", server.url("/anything/dir/").absoluteString, "-T", file)
            #expect(run.status == 0, "\(run.stderr)")
            let request = try #require(server.receivedRequests.last)
            #expect(request.method == "PUT")
            #expect(request.uri == "/anything/dir/up%20load.txt")
            #expect(request.bodyString == "line\r\nraw\n")
            #expect(request.header("Content-Type") == nil)
            let named = await courier("fetch", server.url("/put?x=1").absoluteString, "--upload-file", file)
            #expect(named.status == 0, "\(named.stderr)")
            #expect(server.receivedRequests.last?.uri == "/put?x=1")
        }
    }

    @Test func uploadFromStandardInputPutsItsBytesToTheURLAsGiven() async throws {
        try await withServer { server in
            let run = await courier(stdin: "from\nstdin", "fetch", server.url("/anything/dir/").absoluteString, "-T", "-")
            #expect(run.status == 0, "\(run.stderr)")
            let request = try #require(server.receivedRequests.last)
            #expect(request.method == "PUT")
            #expect(request.uri == "/anything/dir/")
            #expect(request.bodyString == "from\nstdin")
        }
    }

    @Test func writeOutReadsItsFormatFromAFileOrStandardInput() async throws {
        try await withFolderAndServer { folder, server in
            let file = try write("code=%{http_code}\n", to: "format.txt", in: folder)
            let run = await courier("fetch", server.url("/status/201").absoluteString, "-w", "@" + file)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.hasSuffix("code=201\n"), "\(run.stdout.debugDescription)")
            let piped = await courier(stdin: "[%{http_code}]", "fetch", server.url("/status/202").absoluteString, "-w", "@-")
            #expect(piped.stdout.hasSuffix("[202]"), "\(piped.stdout.debugDescription)")
            let missing = await courier("fetch", server.url("/get").absoluteString, "-w", "@" + folder.appendingPathComponent("none").path)
            #expect(missing.status == 26)
            #expect(server.receivedRequests.count == 2)
        }
    }

    @Test func writeOutPrintsTheVariablesAfterTheBody() async throws {
        try await withServer { server in
            let format = "\\n%{http_code} %{size_download} %{num_redirects} %{content_type} %{url_effective} %% [%{time_total}]\\n"
            let run = await courier("fetch", server.url("/redirect/1").absoluteString, "-w", format)
            #expect(run.status == 0, "\(run.stderr)")
            let start = try #require(run.stdout.range(of: "\n200 ", options: .backwards))
            let written = String(run.stdout[start.lowerBound...])
            let size = run.stdout.utf8.count - written.utf8.count
            let expected = "\n200 \(size) 1 application/json \(server.url("/get").absoluteString) % ["
            #expect(written.hasPrefix(expected), "\(written.debugDescription)")
            let time = written.dropFirst(expected.count).dropLast(2)
            #expect(time.wholeMatch(of: /[0-9]+\.[0-9]{6}/) != nil, "\(time)")
            #expect(written.hasSuffix("]\n"))
            let buffered = await courier("fetch", server.url("/status/404").absoluteString, "--report", "json", "-w", "%{http_code}")
            #expect(buffered.stdout.hasSuffix("}\n404"))
            let unknown = await courier("fetch", server.url("/get").absoluteString, "-w", "%{nonsense}")
            #expect(unknown.status == 2)
            #expect(unknown.stderr.contains("%{http_code}"))
            #expect(server.receivedRequests.count == 3)
        }
    }

    @Test(arguments: [
        (["-k"], "--cacert"), (["--insecure"], "--pin"), (["--tlsv1.0"], "--tls-min"), (["--tlsv1.1"], "--tls-min"), (["--tlsv1"], "--tls-min"),
    ])
    func refusedCurlOptionsSayWhatToDoInstead(arguments: [String], advice: String) async {
        for command in [["fetch", "https://127.0.0.1:9/"], ["download", "https://127.0.0.1:9/x", "-o", "/nonexistent/x"], ["batch", "/nonexistent/batch.json"]] {
            let run = await courier(command + arguments)
            #expect(run.status == 2, "\(command + arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
            #expect(run.stderr.contains(advice), "\(run.stderr)")
        }
    }

    @Test func everyNewInputPathIsCheckedByKindBeforeAnyRequest() async throws {
        try await withFolderAndServer { folder, server in
            let fifo = folder.appendingPathComponent("fifo").path
            try makeFIFO(fifo)
            let url = server.url("/anything/").absoluteString
            let cases: [([String], String)] = [
                (["--data-binary", "@\(fifo)"], "--data-binary @\(fifo) is a FIFO"),
                (["--data-urlencode", "n@\(fifo)"], "--data-urlencode @\(fifo) is a FIFO"),
                (["-F", "f=@\(fifo)"], "--form f=@\(fifo) is a FIFO"),
                (["-F", "f=<\(fifo)"], "--form f=<\(fifo) is a FIFO"),
                (["-T", fifo], "-T \(fifo) is a FIFO"),
                (["-T", folder.path], "is a folder"),
                (["-d", "@\(fifo)"], "--data @\(fifo) is a FIFO"),
            ]
            for (arguments, problem) in cases {
                let run = await courier(["fetch", url] + arguments)
                #expect(run.status == ExitStatus.readError.rawValue, "\(arguments): \(run.stderr)")
                #expect(run.stderr.contains(problem), "\(arguments): \(run.stderr)")
            }
            let output = await courier(in: folder, "fetch", server.url("/fifo").absoluteString, "-O")
            #expect(output.status == ExitStatus.writeError.rawValue)
            #expect(output.stderr.contains("-O \(fifo): a FIFO is there"), "\(output.stderr)")
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func onlyOneKindOfBody() async {
        let run = await courier("fetch", "http://127.0.0.1:9/", "-d", "a", "-T", "/nonexistent")
        #expect(run.status == 2)
        #expect(run.stderr.contains("use only one of"))
    }

    @Test func dataRawKeepsTheAtAndDataASCIIIsD() async throws {
        try await withServer { server in
            let run = await courier("fetch", server.url("/post").absoluteString, "--data-raw", "@not-a-file", "--data-ascii", "a=1")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(server.receivedRequests.last?.bodyString == "@not-a-file&a=1")
            #expect(server.receivedRequests.last?.header("Content-Type") == "application/x-www-form-urlencoded")
        }
    }

    @Test func tlsv12AndTlsv13AreTheTLSFloor() async throws {
        let files = try FetchTLSTests.Files()
        defer { files.remove() }
        var tls = TestServerTLS(chain: [files.server])
        tls.maximumVersion = 12
        try await TestServer.withServer(tls: tls) { server in
            let url = server.url("/get").absoluteString
            let twelve = await courier("fetch", "--connect-timeout", "120", url, "--cacert", files.caFile, "--tlsv1.2")
            #expect(twelve.status == 0, "\(twelve.stderr)")
            let thirteen = await courier("fetch", "--connect-timeout", "120", url, "--cacert", files.caFile, "--tlsv1.3")
            #expect(thirteen.status == ExitStatus.tlsHandshake.rawValue, "\(thirteen.stderr)")
            #expect(thirteen.stderr.contains("and courier share no TLS version"), "\(thirteen.stderr)")
            let both = await courier("fetch", url, "--tlsv1.3", "--tls-min", "1.2")
            #expect(both.status == 2)
            #expect(server.receivedRequests.count == 1)
        }
    }

    @Test func writeOutFollowsADurableResponse() async throws {
        try await withFolderAndServer { folder, server in
            let queue = folder.appendingPathComponent("q.sqlite").path
            let run = await courier(
                "fetch", server.url("/idempotent/w").absoluteString, "--data", "x", "--durable", "--queue", queue, "-w", "[%{http_code}]"
            )
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.hasSuffix("}[201]") || run.stdout.hasSuffix("}\n[201]"), "\(run.stdout)")
        }
    }

    @Test func silentLeavesOutTheProgressOfADownload() async throws {
        try await withFolderAndServer { folder, server in
            let url = server.url("/bytes/200000").absoluteString
            let shown = await courier("download", url, "-o", folder.appendingPathComponent("shown").path)
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(!shown.stderr.isEmpty)
            let silent = await courier("download", url, "-o", folder.appendingPathComponent("silent").path, "-s")
            #expect(silent.status == 0)
            #expect(silent.stderr.isEmpty, "\(silent.stderr)")
            let saved = try Data(contentsOf: folder.appendingPathComponent("silent"))
            #expect(saved.count == 200_000)
        }
    }
}
