import CourierTesting
import Foundation
import Testing

/// Sends a request to a fresh fault server and returns everything it wrote before closing.
func faultResponse(_ fault: FaultServer.Fault) async throws -> [UInt8] {
    let server = try await FaultServer.start(fault)
    do {
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let bytes = await connection.readToEnd()
        await connection.close()
        try await server.shutdown()
        return bytes
    } catch {
        try? await server.shutdown()
        throw error
    }
}

@Suite("FaultServer")
struct FaultServerTests {
    @Test func closeBeforeResponseWritesNothing() async throws {
        #expect(try await faultResponse(.closeBeforeResponse).isEmpty)
    }

    @Test func closeMidBodyWritesAPartialBody() async throws {
        let bytes = try await faultResponse(.closeMidBody)
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"
        #expect(bytes.count == head.utf8.count + 100)
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix(head))
    }

    @Test func malformedResponses() async throws {
        let status = String(decoding: try await faultResponse(.malformedStatusLine), as: UTF8.self)
        #expect(status.hasPrefix("HTTP/1.1 abc OK\r\n"))
        let chunked = String(decoding: try await faultResponse(.brokenChunkedFraming), as: UTF8.self)
        #expect(chunked.hasPrefix("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n"))
        let conflicting = String(decoding: try await faultResponse(.conflictingContentLength), as: UTF8.self)
        #expect(conflicting == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello!!")
        #expect(try await faultResponse(.raw([1, 2, 3])) == [1, 2, 3])
    }

    @Test func endlessHeadersAreBounded() async throws {
        let bytes = try await faultResponse(.endlessHeaders)
        let text = String(decoding: bytes.prefix(64), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\nX-Filler-0: aaaa"))
        #expect(bytes.count >= 4 * 1024 * 1024)
        #expect(bytes.count < 5 * 1024 * 1024)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("\r\n\r\n"))
    }

    @Test func endlessHeadersStopWhenTheClientCloses() async throws {
        let server = try await FaultServer.start(.endlessHeaders)
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(await connection.peek(atLeast: 10).count >= 10)
        await connection.close()
        #expect(try await eventually { server.openConnections == 0 })
        try await server.shutdown()
    }

    @Test func stallKeepsTheConnectionOpenUntilShutdown() async throws {
        let server = try await FaultServer.start(.stall)
        #expect(server.url.absoluteString == "http://127.0.0.1:\(server.port)/")
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try await eventually { server.openConnections == 1 })
        try await server.shutdown()
        #expect(await connection.readToEnd().isEmpty)
        #expect(connection.isClosedByPeer)
        try await server.shutdown()
        #expect(server.acceptedConnections == 1)
    }
}
