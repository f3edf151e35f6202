import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port that is bound but never listened on: connections to it are refused, and no
/// server started on port 0 can take it while the reservation lasts. (A port freed by stopping
/// a server can be handed to the next server another test starts.) The socket allows address
/// reuse, so `TestServer.start(port:)` can bring a server up on the port while it is reserved.
public final class ReservedPort: Sendable {
    /// The reserved port on 127.0.0.1.
    public let port: Int
    private let descriptor: Int32

    /// Binds a TCP socket to 127.0.0.1 on a port the system chooses.
    ///
    /// - Parameter isListening: When true, the socket also listens but never accepts: the
    ///   kernel completes connections into the backlog, and nothing ever reads from them or
    ///   answers, like a server that hangs. When false (the default), connections are refused.
    public init(isListening: Bool = false) throws {
        #if canImport(Glibc) || canImport(Musl)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw ReservedPortError(step: "socket", code: errno) }
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(descriptor)
            throw ReservedPortError(step: "bind", code: code)
        }
        if isListening, listen(descriptor, 16) != 0 {
            let code = errno
            close(descriptor)
            throw ReservedPortError(step: "listen", code: code)
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    /// `http://127.0.0.1:PORT` followed by `pathAndQuery`.
    public func url(_ pathAndQuery: String = "/") -> URL {
        URL(string: "http://127.0.0.1:\(port)\(pathAndQuery.hasPrefix("/") ? "" : "/")\(pathAndQuery)")!
    }
}

/// A socket call that failed while reserving a port.
struct ReservedPortError: Error, CustomStringConvertible {
    let step: String
    let code: Int32
    var description: String { "\(step) failed while reserving a port: \(String(cString: strerror(code)))" }
}
