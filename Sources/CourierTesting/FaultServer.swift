import CourierDemoServer
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// A raw TCP server that answers every HTTP request with a specific protocol fault, for testing client
/// error handling.
///
/// For each connection it reads until the end of the request head (`\r\n\r\n`) and then misbehaves as
/// described by its ``Fault``. It listens on `127.0.0.1` on an ephemeral port and runs on
/// `MultiThreadedEventLoopGroup.singleton`. Call ``shutdown()`` when done.
public final class FaultServer: Sendable {
    /// How the server misbehaves once it has read a request head.
    public enum Fault: Sendable {
        /// Close the connection without writing anything.
        case closeBeforeResponse
        /// Write `HTTP/1.1 200 OK` with `Content-Length: 1000` and only 100 body bytes, then close.
        case closeMidBody
        /// Write nothing and keep the connection open until the client closes it or the server shuts down.
        case stall
        /// Write `HTTP/1.1 abc OK` (a non-numeric status code), then close.
        case malformedStatusLine
        /// Write a chunked response whose second chunk-size line (`zz`) is not hexadecimal, then close.
        case brokenChunkedFraming
        /// Write a response with two different `Content-Length` fields (5 and 7), then close.
        case conflictingContentLength
        /// Write a status line followed by 1 KiB header fields, 4 MiB in total, never ending the head, then close.
        case endlessHeaders
        /// Write exactly these bytes, then close.
        case raw([UInt8])
        /// Answer the first request of each connection with `200 OK` and the body `ok`, keeping
        /// the connection open; close it, without a response, when the second request arrives:
        /// a kept-alive connection that the server closed just as the client reused it.
        case closeReusedConnection
        /// Write a status line, then one header field every 50 ms, never ending the head,
        /// until the client closes (or 10 minutes pass): a head that trickles in forever.
        case trickleHead
        /// Write a head announcing a 1 MiB body, then one body byte every 50 ms, until the
        /// client closes (or 10 minutes pass): a body that trickles in forever.
        case trickleBody
    }

    private let channel: any Channel
    private let registry: ConnectionRegistry
    private let scheme: String

    /// The TCP port the server listens on.
    public let port: Int

    private init(channel: any Channel, registry: ConnectionRegistry, port: Int, scheme: String) {
        self.channel = channel
        self.registry = registry
        self.port = port
        self.scheme = scheme
    }

    /// Starts a server on `127.0.0.1` (ephemeral port) that injects `fault` into every
    /// connection; with `tls`, after a TLS handshake. (Without `tls`, an `https` URL of its
    /// port makes a server that never finishes the handshake: under ``Fault/stall`` it waits
    /// for a request head that a TLS client never sends in clear.)
    public static func start(_ fault: Fault, tls: TestServerTLS? = nil) async throws -> FaultServer {
        let sslContext = try tls?.makeContext()
        let registry = ConnectionRegistry()
        let (channel, port) = try await LoopbackServerChannel.bind(port: 0, registry: registry, sslContext: sslContext) { sync in
            try sync.addHandler(FaultHandler(fault: fault))
        }
        return FaultServer(channel: channel, registry: registry, port: port, scheme: tls == nil ? "http" : "https")
    }

    /// The server's URL, `http://127.0.0.1:PORT/` (or `https://…` with TLS).
    public var url: URL {
        URL(string: "\(scheme)://127.0.0.1:\(self.port)/")!
    }

    /// The number of TCP connections currently open.
    public var openConnections: Int {
        self.registry.openConnections
    }

    /// The number of TCP connections accepted since the server started.
    public var acceptedConnections: Int {
        self.registry.acceptedConnections
    }

    /// Stops listening and closes every open connection (a stalled client then sees the connection close);
    /// waits until they are closed.
    ///
    /// Idempotent: calling it again (or concurrently) waits for the same shutdown.
    public func shutdown() async throws {
        try await self.registry.shutdown(serverChannel: self.channel)
    }
}

extension FaultServer.Fault {
    /// The bytes written right after the request head, for the faults that write a fixed response.
    var fixedResponse: [UInt8]? {
        switch self {
        case .closeBeforeResponse, .stall, .endlessHeaders, .closeReusedConnection, .trickleHead, .trickleBody:
            return nil
        case .closeMidBody:
            return Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".utf8)
                + [UInt8](repeating: UInt8(ascii: "x"), count: 100)
        case .malformedStatusLine:
            return Array("HTTP/1.1 abc OK\r\nContent-Length: 0\r\n\r\n".utf8)
        case .brokenChunkedFraming:
            return Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\nbad\r\n".utf8)
        case .conflictingContentLength:
            return Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello!!".utf8)
        case .raw(let bytes):
            return bytes
        }
    }
}
