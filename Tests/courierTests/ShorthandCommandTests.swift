import CourierTesting
import Foundation
import Testing

@testable import courier

/// The echo of `/anything`, from a run's stdout.
private func echo(_ run: (status: Int32, stdout: String, stderr: String, raw: Data)) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
}

@Suite("courier [METHOD] URL ITEM…")
struct ShorthandCommandTests {
    @Test func aURLAloneIsAGet() async throws {
        try await withServer { server in
            let run = await courier(server.url("/anything").absoluteString)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try echo(run)["method"] as? String == "GET")
            let received = try #require(server.receivedRequests.last)
            #expect(received.body.isEmpty)
            #expect(received.header("Content-Type") == nil)
            let port = try #require(server.url("/").port)
            let local = await courier(":\(port)/anything", "-j")
            #expect(local.status == 0, "\(local.stderr)")
            #expect(server.receivedRequests.last?.header("Accept") == "application/json, */*;q=0.5")
            #expect(server.receivedRequests.last?.header("Content-Type") == "application/json")
            #expect(server.receivedRequests.last?.method == "GET")
        }
    }

    @Test func aMethodInCapitalsIsSent() async throws {
        try await withServer { server in
            let run = await courier("HEAD", server.url("/anything").absoluteString, "-i")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.hasPrefix("HTTP/1.1 200"))
            #expect(server.receivedRequests.last?.method == "HEAD")
            let delete = await courier("DELETE", server.url("/anything").absoluteString, "id==7")
            #expect(delete.status == 0, "\(delete.stderr)")
            #expect(server.receivedRequests.last?.method == "DELETE")
            #expect(server.receivedRequests.last?.uri == "/anything?id=7")
        }
    }

    @Test func itemsMakeHeadersQueryAndAJSONBody() async throws {
        try await withServer { server in
            let run = await courier("POST", server.url("/anything").absoluteString, "name=ada", "age:=36", "X-Id:7", "q==1 2")
            #expect(run.status == 0, "\(run.stderr)")
            let received = try #require(server.receivedRequests.last)
            #expect(received.method == "POST")
            #expect(received.uri == "/anything?q=1%202")
            #expect(received.header("X-Id") == "7")
            #expect(received.header("Content-Type") == "application/json")
            #expect(received.header("Accept") == "application/json, */*;q=0.5")
            let body = try #require(try JSONSerialization.jsonObject(with: Data(received.body)) as? [String: Any])
            #expect(body["name"] as? String == "ada")
            #expect(body["age"] as? Int == 36)
            #expect(body.count == 2)
        }
    }

    @Test func fieldsWithoutAMethodPostAndOptionsWorkAnywhere() async throws {
        try await withServer { server in
            let url = server.url("/anything").absoluteString.replacingOccurrences(of: "http://", with: "")
            let run = await courier(url, "-H", "X-A: 1", "a=1", "-i", "Accept:text/plain", "--timeout", "30")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.hasPrefix("HTTP/1.1 200"))
            let received = try #require(server.receivedRequests.last)
            #expect(received.method == "POST")
            #expect(received.header("X-A") == "1")
            #expect(received.header("Accept") == "text/plain")
            #expect(Data(received.body) == Data("{\"a\":\"1\"}".utf8))
        }
    }

    @Test func aFileItemMakesAMultipartBody() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let notes = folder.appendingPathComponent("notes.txt")
        try Data("first line\n".utf8).write(to: notes)
        let bio = folder.appendingPathComponent("bio.txt")
        try Data("Analyst".utf8).write(to: bio)
        try await withServer { server in
            let run = await courier("PUT", server.url("/anything").absoluteString, "name=ada", "notes@\(notes.path)", "bio=@\(bio.path)")
            #expect(run.status == 0, "\(run.stderr)")
            let received = try #require(server.receivedRequests.last)
            #expect(received.method == "PUT")
            #expect(received.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
            let object = try echo(run)
            #expect(object["form"] as? [String: String] == ["name": "ada", "bio": "Analyst"])
            let files = try #require(object["files"] as? [String: String])
            #expect(files["notes"] == "first line\n")
        }
    }

    @Test func formSendsTheFieldsURLEncoded() async throws {
        try await withServer { server in
            let run = await courier(server.url("/anything").absoluteString, "--form", "name=ada", "city=São Paulo", "X-B;", "User-Agent:")
            #expect(run.status == 0, "\(run.stderr)")
            let received = try #require(server.receivedRequests.last)
            #expect(received.method == "POST")
            #expect(received.header("Content-Type") == "application/x-www-form-urlencoded")
            #expect(Data(received.body) == Data("name=ada&city=S%C3%A3o+Paulo".utf8))
            #expect(received.header("X-B") == "")
            #expect(received.header("User-Agent") == nil)
        }
    }

    @Test(arguments: [
        (["nope"], "is not a request item"),
        (["a:=nope"], "not valid JSON"),
        (["X-A:1\u{7}"], "control character"),
        (["a[b]=c"], "nested JSON paths"),
        (["a=1", "-d", "b=2"], "two bodies"),
        (["a:=1", "-f"], "is JSON"),
        (["-f", "-j"], "give one of"),
    ])
    func badItemsAreRefusedBeforeSending(items: [String], reason: String) async throws {
        try await withServer { server in
            let run = await courier([server.url("/anything").absoluteString] + items)
            #expect(run.status == 2)
            #expect(run.stderr.contains(reason), "\(run.stderr)")
            #expect(server.receivedRequests.isEmpty)
        }
    }

    /// A file that cannot be read is curl's read error (26), as `-F name=@FILE` is.
    @Test func anItemsMissingFileIsAReadErrorBeforeSending() async throws {
        try await withServer { server in
            let run = await courier(server.url("/anything").absoluteString, "doc@/nonexistent/courier-file")
            #expect(run.status == 26)
            #expect(run.stderr.contains("doc@/nonexistent"), "\(run.stderr)")
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func unknownFirstWordsShowTheShapes() async {
        let run = await courier("nowhere", "a=1")
        #expect(run.status == 2)
        #expect(run.stderr.contains("METHOD URL"))
        let method = await courier("POST", "nowhere")
        #expect(method.status == 2)
        #expect(method.stderr.contains("must be followed by a URL"))
    }
}
