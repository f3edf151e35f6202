import CourierTesting
import Foundation
import Testing

/// Polls `condition` (bounded number of attempts, 10 ms apart) until it holds.
func eventually(_ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        try await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
}

@Suite("TestServer connections")
struct TestServerConnectionTests {
    @Test func keepAliveServesManyRequestsOnOneConnection() async throws {
        try await withTestServer { server in
            let connection = try await RawConnection.connect(port: server.port)
            for index in 0..<200 {
                try await connection.send("GET /get?i=\(index) HTTP/1.1\r\nHost: localhost\r\n\r\n")
                let response = try await connection.readResponse()
                #expect(response.status == 200)
                let args = try response.jsonObject()["args"] as? [String: String]
                #expect(args?["i"] == String(index))
            }
            // A POST with a body, then pipelined requests, on the same connection.
            try await connection.send("POST /post HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\n\r\nabc")
            #expect(try await connection.readResponse().jsonObject()["data"] as? String == "abc")
            try await connection.send(
                "GET /status/204 HTTP/1.1\r\nHost: x\r\n\r\nGET /count HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            #expect(try await connection.readResponse().status == 204)
            #expect(try await connection.readResponse().jsonObject()["count"] as? Int == 203)
            #expect(server.acceptedConnections == 1)
            #expect(server.openConnections == 1)
            await connection.close()
            #expect(try await eventually { server.openConnections == 0 })
        }
    }

    @Test func requestsAreRecordedInOrder() async throws {
        try await withTestServer { server in
            _ = try await rawRequest(server.port, "GET", "/get?a=1", headers: ["X-Test: one"])
            _ = try await rawRequest(server.port, "PUT", "/put", headers: ["Content-Type: text/plain"], body: [1, 2, 3])
            let requests = server.receivedRequests
            #expect(requests.count == 2)
            #expect(requests[0].method == "GET")
            #expect(requests[0].uri == "/get?a=1")
            #expect(requests[0].header("x-test") == "one")
            #expect(requests[0].headers.first?.name == "Host")
            #expect(requests[1].method == "PUT")
            #expect(requests[1].body == [1, 2, 3])
            #expect(server.acceptedConnections == 2)
            #expect(server.url("/get?x=1").absoluteString == "http://127.0.0.1:\(server.port)/get?x=1")
            #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        }
    }

    @Test func closeRouteClosesTheConnection() async throws {
        try await withTestServer { server in
            let connection = try await RawConnection.connect(port: server.port)
            try await connection.send("GET /close HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await connection.readResponse()
            #expect(response.text == "bye")
            #expect(response.header("Connection")?.lowercased() == "close")
            #expect(await connection.readToEnd().isEmpty)
            #expect(connection.isClosedByPeer)
        }
    }

    @Test func malformedRequestGets400AndClose() async throws {
        try await withTestServer { server in
            let connection = try await RawConnection.connect(port: server.port)
            try await connection.send("NOT HTTP AT ALL\r\n\r\n")
            let response = try await connection.readResponse()
            #expect(response.status == 400)
            #expect(await connection.readToEnd().isEmpty)
            #expect(connection.isClosedByPeer)
            let invalidHeader = try await rawRequest(server.port, "GET", "/response-headers?Bad%20Name=1&X-Ok=%0D%0Ax")
            #expect(invalidHeader.status == 200)
            #expect(invalidHeader.header("X-Ok") == nil)
        }
    }

    @Test func expectContinueGetsInterimResponse() async throws {
        try await withTestServer { server in
            let connection = try await RawConnection.connect(port: server.port)
            try await connection.send(
                "POST /post HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
            )
            let interim = await connection.peek(atLeast: 12)
            #expect(String(decoding: interim, as: UTF8.self).hasPrefix("HTTP/1.1 100"))
            try await connection.send("hi")
            #expect(try await connection.readResponse().jsonObject()["data"] as? String == "hi")
            await connection.close()
        }
    }

    @Test func shutdownClosesOpenConnectionsAndIsIdempotent() async throws {
        let server = try await TestServer.start()
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET /delay/10 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await eventually { server.receivedRequests.count == 1 })
        try await server.shutdown()
        #expect(await connection.readToEnd().isEmpty)
        try await server.shutdown()
        #expect(server.openConnections == 0)
    }

    @Test func twoServersAreIndependent() async throws {
        try await withTestServer { first in
            try await withTestServer { second in
                #expect(first.port != second.port)
                let target = "http://127.0.0.1:\(second.port)/get"
                let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
                let redirect = try await rawRequest(first.port, "GET", "/redirect-to?url=\(encoded)")
                #expect(redirect.status == 302)
                #expect(redirect.header("Location") == target)
                #expect(second.receivedRequests.isEmpty)
            }
        }
    }
}
