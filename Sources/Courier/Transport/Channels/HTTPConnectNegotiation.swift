import Foundation
import NIOCore

/// The `CONNECT` that opens a tunnel through an HTTP proxy, as ``TunnelHandler`` runs it.
///
/// The `CONNECT` names the origin as `host:port`, in its target and in its `Host` field, and
/// carries the proxy's credentials (Basic) and nothing else: no header of the request, no
/// origin credential. The proxy's answer is read as bytes up to the end of its head (at most
/// 16 KiB); a 2xx opens the tunnel, 407 is a refusal of the credentials, any other status or
/// an answer that is not an HTTP response head a refusal of the tunnel.
struct HTTPConnectNegotiation: TunnelNegotiation {
    /// Why a tunnel was not opened.
    enum Refusal: Error {
        /// The proxy wants (other) credentials: 407.
        case credentials
        /// The proxy answered this status.
        case status(Int)
        /// The proxy's answer was not an HTTP response head.
        case unreadable
        /// The proxy closed the connection, or its answer did not come in time.
        case noAnswer
    }

    static var noAnswer: any Error { Refusal.noAnswer }
    static var unreadable: any Error { Refusal.unreadable }

    /// The longest answer head read from a proxy.
    static let maximumHeadSize = 16 * 1024

    let opening: [UInt8]

    init(host: String, port: Int, proxy: Proxy) {
        let target = "\(Exchange.authorityHost(host)):\(port)"
        var request = "CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n"
        if let credentials = proxy.credentials {
            request += "Proxy-Authorization: \(Authenticator.basic(user: credentials.user, password: credentials.password))\r\n"
        }
        opening = Array((request + "\r\n").utf8)
    }

    func advance(_ received: inout [UInt8]) throws -> TunnelStep {
        let buffer = ByteBuffer(bytes: received)
        guard let end = Self.endOfHead(buffer.readableBytesView) else {
            if received.count > Self.maximumHeadSize { throw Refusal.unreadable }
            return .read
        }
        let head = String(decoding: received.prefix(end), as: UTF8.self)
        received.removeFirst(end)
        guard let status = Self.status(of: head) else { throw Refusal.unreadable }
        guard (200..<300).contains(status) else { throw status == 407 ? Refusal.credentials : Refusal.status(status) }
        return .established
    }

    /// Where the head in `bytes` ends, just past its blank line, if it has ended.
    static func endOfHead(_ bytes: ByteBufferView) -> Int? {
        let crlfcrlf: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4 else { return nil }
        var index = bytes.startIndex
        while index <= bytes.endIndex - 4 {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                return index - bytes.startIndex + crlfcrlf.count
            }
            index += 1
        }
        return nil
    }

    /// The status code of the head's status line (`HTTP/1.x NNN …`), if it is one.
    static func status(of head: String) -> Int? {
        // Bytes, not characters: "\r\n" is one Character, which a character test would miss.
        let line = head.utf8.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let parts = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].starts(with: "HTTP/1.".utf8), parts[1].count == 3,
            parts[1].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return parts[1].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}

extension HTTPConnectNegotiation.Refusal {
    /// The error of a tunnel to `host`:`port` that `proxy` did not open; nothing was sent to
    /// the origin.
    func error(host: String, port: Int, proxy: Proxy?) -> CourierError {
        let named = proxy.map { "The proxy \($0.host):\($0.port)" } ?? "The proxy"
        var error: CourierError
        switch self {
        case .credentials:
            error = CourierError(
                .proxy,
                "\(named) refused its credentials (407 Proxy Authentication Required); check the user name and password of ClientConfiguration.proxy (or of the proxy the environment names)."
            )
        case .status(let status):
            error = CourierError(.proxy, "\(named) refused to open a tunnel to \(host):\(port) (status \(status)); check that it allows CONNECT to that port.")
        case .unreadable:
            error = CourierError(.proxy, "\(named) did not answer the tunnel request with an HTTP response; check that it is an HTTP proxy.")
        case .noAnswer:
            error = CourierError(.proxy, "\(named) did not answer the tunnel request in time, or closed the connection; check that it is a running HTTP proxy.")
        }
        error.requestMayHaveBeenSent = false
        error.proxy = proxy
        return error
    }
}
