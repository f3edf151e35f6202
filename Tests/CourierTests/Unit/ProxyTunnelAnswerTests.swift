import NIOCore
import Testing

@testable import Courier

/// How Courier's own channels read a proxy's answer to `CONNECT`, whatever bytes it sends.
@Suite("Proxy tunnel answers")
struct ProxyTunnelAnswerTests {
    @Test(
        "a status line gives its three-digit code; anything else gives none",
        arguments: [
            ("HTTP/1.1 200 Connection established\r\n\r\n", 200), ("HTTP/1.0 407 Proxy Authentication Required\r\n", 407),
            ("HTTP/1.1 200\r\n\r\n", 200), ("HTTP/1.1 2000 OK\r\n", nil), ("HTTP/2 200 OK\r\n", nil), ("SSH-2.0-OpenSSH\r\n", nil),
            ("HTTP/1.1 abc OK\r\n", nil), ("", nil), ("HTTP/1.1  200 OK\r\n", nil),
        ] as [(String, Int?)])
    func statusLine(head: String, code: Int?) {
        #expect(HTTPConnectNegotiation.status(of: head) == code)
    }

    @Test("the head ends just past its blank line, wherever the pieces were cut")
    func endOfHead() {
        let answer = "HTTP/1.1 200 OK\r\nVia: proxy\r\n\r\n"
        #expect(HTTPConnectNegotiation.endOfHead(ByteBuffer(string: answer).readableBytesView) == answer.utf8.count)
        #expect(HTTPConnectNegotiation.endOfHead(ByteBuffer(string: answer + "more").readableBytesView) == answer.utf8.count)
        #expect(HTTPConnectNegotiation.endOfHead(ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r").readableBytesView) == nil)
        #expect(HTTPConnectNegotiation.endOfHead(ByteBuffer(string: "\r\n\r").readableBytesView) == nil)
        #expect(HTTPConnectNegotiation.endOfHead(ByteBuffer().readableBytesView) == nil)
        // A view that does not start at index zero.
        var buffer = ByteBuffer(string: "xx" + answer)
        buffer.moveReaderIndex(forwardBy: 2)
        #expect(HTTPConnectNegotiation.endOfHead(buffer.readableBytesView) == answer.utf8.count)
    }
}
