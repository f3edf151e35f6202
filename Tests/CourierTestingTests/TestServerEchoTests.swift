import CourierTesting
import Foundation
import Testing

/// Runs `body` with a fresh server and always shuts it down.
func withTestServer<T>(_ body: (TestServer) async throws -> T) async throws -> T {
    try await TestServer.withServer(body)
}

@Suite("TestServer echo routes")
struct TestServerEchoTests {
    @Test func getEchoesArgsAndHeaders() async throws {
        try await withTestServer { server in
            let response = try await rawRequest(
                server.port, "GET", "/get?x=1&y=a+b&y=c%20d&e=%E2%9C%93",
                headers: ["X-Custom: hello", "x-multi: 1", "X-Multi: 2"]
            )
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            let json = try response.jsonObject()
            #expect(json["method"] as? String == "GET")
            #expect(json["path"] as? String == "/get")
            #expect(json["url"] as? String == "http://127.0.0.1:\(server.port)/get?x=1&y=a+b&y=c%20d&e=%E2%9C%93")
            let args = try #require(json["args"] as? [String: Any])
            #expect(args["x"] as? String == "1")
            #expect(args["y"] as? [String] == ["a+b", "c d"])
            #expect(args["e"] as? String == "✓")
            let headers = try #require(json["headers"] as? [String: String])
            #expect(headers["X-Custom"] == "hello")
            #expect(headers["x-multi"] == "1, 2")
            #expect(json["json"] is NSNull)
        }
    }

    @Test func postFormIsParsed() async throws {
        try await withTestServer { server in
            let body = Array("name=J%C3%BCrgen+M&tag=a&tag=b%2Bc".utf8)
            let response = try await rawRequest(
                server.port, "POST", "/post",
                headers: ["Content-Type: application/x-www-form-urlencoded"], body: body
            )
            #expect(response.status == 200)
            let json = try response.jsonObject()
            let form = try #require(json["form"] as? [String: Any])
            #expect(form["name"] as? String == "Jürgen M")
            #expect(form["tag"] as? [String] == ["a", "b+c"])
            #expect(json["data"] as? String == "name=J%C3%BCrgen+M&tag=a&tag=b%2Bc")
        }
    }

    @Test func postJSONIsParsed() async throws {
        try await withTestServer { server in
            let body = Array(#"{"a": 1, "b": [true, null, "x"], "c": {"d": 1.5}}"#.utf8)
            let response = try await rawRequest(
                server.port, "POST", "/post", headers: ["Content-Type: application/json; charset=utf-8"], body: body
            )
            let json = try response.jsonObject()
            let parsed = try #require(json["json"] as? [String: Any])
            #expect(parsed["a"] as? Int == 1)
            #expect((parsed["b"] as? [Any])?.count == 3)
            #expect((parsed["c"] as? [String: Any])?["d"] as? Double == 1.5)
        }
    }

    @Test func binaryBodyIsEchoedAsDataURL() async throws {
        try await withTestServer { server in
            let response = try await rawRequest(server.port, "PUT", "/put", body: [0xFF, 0x00, 0xFE])
            let json = try response.jsonObject()
            #expect(json["data"] as? String == "data:application/octet-stream;base64,/wD+")
        }
    }

    @Test func multipartFormAndFiles() async throws {
        try await withTestServer { server in
            let body = [
                "--XyZ\r\n",
                "Content-Disposition: form-data; name=\"field\"\r\n\r\n",
                "value 1\r\n",
                "--XyZ\r\n",
                "Content-Disposition: form-data; name=\"upload\"; filename=\"a.txt\"\r\n",
                "Content-Type: text/plain\r\n\r\n",
                "file\r\ncontent\r\n",
                "--XyZ--\r\n",
            ].joined()
            let response = try await rawRequest(
                server.port, "POST", "/anything/upload",
                headers: ["Content-Type: multipart/form-data; boundary=\"XyZ\""], body: Array(body.utf8)
            )
            let json = try response.jsonObject()
            #expect((json["form"] as? [String: Any])?["field"] as? String == "value 1")
            #expect((json["files"] as? [String: Any])?["upload"] as? String == "file\r\ncontent")
            #expect(json["path"] as? String == "/anything/upload")
        }
    }

    @Test func methodMismatchIs405AndUnknownRouteIs404() async throws {
        try await withTestServer { server in
            let wrongMethod = try await rawRequest(server.port, "POST", "/get")
            #expect(wrongMethod.status == 405)
            let missing = try await rawRequest(server.port, "GET", "/nope")
            #expect(missing.status == 404)
            #expect(try missing.jsonObject()["error"] is String)
            let head = try await rawRequest(server.port, "HEAD", "/get")
            #expect(head.status == 200)
            #expect(Int(head.header("Content-Length") ?? "") ?? 0 > 0)
        }
    }

    @Test func statusRoutes() async throws {
        try await withTestServer { server in
            let teapot = try await rawRequest(server.port, "GET", "/status/418")
            #expect(teapot.status == 418)
            #expect(teapot.body.isEmpty)
            let found = try await rawRequest(server.port, "GET", "/status/302")
            #expect(found.header("Location") == "/get")
            let unauthorized = try await rawRequest(server.port, "GET", "/status/401")
            #expect(unauthorized.header("WWW-Authenticate") == "Basic realm=\"Fake Realm\"")
        }
    }

    @Test func redirects() async throws {
        try await withTestServer { server in
            let first = try await rawRequest(server.port, "GET", "/redirect/2")
            #expect(first.status == 302)
            #expect(first.header("Location") == "/relative-redirect/1")
            let last = try await rawRequest(server.port, "GET", "/relative-redirect/1")
            #expect(last.header("Location") == "/get")
            let absolute = try await rawRequest(server.port, "GET", "/absolute-redirect/2")
            #expect(absolute.header("Location") == "http://127.0.0.1:\(server.port)/absolute-redirect/1")
            let to = try await rawRequest(
                server.port, "POST", "/redirect-to?url=http%3A%2F%2Fexample.com%2Fa%3Fb%3Dc&status_code=307"
            )
            #expect(to.status == 307)
            #expect(to.header("Location") == "http://example.com/a?b=c")
        }
    }

    @Test func authAndHeaderRoutes() async throws {
        try await withTestServer { server in
            let credentials = Data("user:passwd".utf8).base64EncodedString()
            let ok = try await rawRequest(
                server.port, "GET", "/basic-auth/user/passwd", headers: ["Authorization: Basic \(credentials)"]
            )
            #expect(ok.status == 200)
            #expect(try ok.jsonObject()["user"] as? String == "user")
            let denied = try await rawRequest(server.port, "GET", "/basic-auth/user/other")
            #expect(denied.status == 401)
            #expect(denied.header("WWW-Authenticate") == "Basic realm=\"Fake Realm\"")

            let custom = try await rawRequest(server.port, "GET", "/response-headers?X-A=1&X-A=2&X-B=b")
            #expect(custom.headerValues("X-A") == ["1", "2"])
            #expect(custom.header("X-B") == "b")

            let decoded = try await rawRequest(server.port, "GET", "/base64/aGVsbG8gd29ybGQ?content_type=text/plain")
            #expect(decoded.text == "hello world")
            #expect(decoded.header("Content-Type") == "text/plain")
        }
    }

    @Test func sampleDocuments() async throws {
        try await withTestServer { server in
            let json = try await rawRequest(server.port, "GET", "/json")
            #expect(try json.jsonObject()["slideshow"] != nil)
            let xml = try await rawRequest(server.port, "GET", "/xml")
            #expect(xml.header("Content-Type") == "application/xml")
            let html = try await rawRequest(server.port, "GET", "/html")
            #expect(html.text.contains("<html>"))
        }
    }
}
