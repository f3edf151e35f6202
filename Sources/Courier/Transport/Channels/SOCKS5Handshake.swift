/// The client's side of a SOCKS5 handshake (RFC 1928), with a user name and password (RFC
/// 1929) when the proxy has credentials: a pure state machine that ``TunnelHandler`` feeds
/// with the proxy's bytes.
///
/// It offers "no authentication", and "user name and password" too when it has credentials,
/// then asks the proxy to `CONNECT` to the target, by name (the proxy resolves it) or by
/// address. The proxy's answers are read strictly: a version other than 5, a method that was
/// not offered, or a reply that is not whole yet, and nothing is sent on.
struct SOCKS5Handshake: TunnelNegotiation {
    /// Where the proxy is asked to connect.
    enum Target: Equatable {
        /// A host name the proxy resolves: `socks5h`.
        case name(String)
        /// An IPv4 (4 bytes) or IPv6 (16 bytes) address.
        case address([UInt8])
    }

    /// Why the handshake failed.
    enum Refusal: Error, Equatable {
        /// The proxy accepts none of the methods offered (0xFF): it wants credentials that
        /// were not given, or a method Courier does not speak.
        case noAcceptableMethod
        /// The proxy refused the user name and password.
        case credentials
        /// The proxy could not connect to the target: the reply code of RFC 1928 §6.
        case reply(UInt8)
        /// The proxy's answer is not SOCKS5.
        case unreadable
        /// The proxy closed the connection, or did not answer in time.
        case noAnswer
        /// A name, user name or password longer than the 255 bytes SOCKS5 carries.
        case tooLong(String)
    }

    typealias Step = TunnelStep

    static var noAnswer: any Error { Refusal.noAnswer }
    static var unreadable: any Error { Refusal.unreadable }

    private enum State {
        case method, authentication, reply, established
    }

    private let request: [UInt8]
    private let authentication: [UInt8]?
    private var state = State.method

    /// - Throws: ``Refusal/tooLong(_:)`` for a name or credential SOCKS5 cannot carry.
    init(target: Target, port: Int, credentials: Proxy.Credentials?) throws(Refusal) {
        var request: [UInt8] = [5, 1, 0]
        switch target {
        case .name(let name):
            let bytes = Array(name.utf8)
            guard !bytes.isEmpty, bytes.count <= 255 else { throw .tooLong("the host name") }
            request += [3, UInt8(bytes.count)] + bytes
        case .address(let bytes):
            request += [bytes.count == 4 ? 1 : 4] + bytes
        }
        request += [UInt8(truncatingIfNeeded: port >> 8), UInt8(truncatingIfNeeded: port)]
        self.request = request
        if let credentials {
            let user = Array(credentials.user.utf8)
            let password = Array(credentials.password.utf8)
            guard user.count <= 255 else { throw .tooLong("the proxy's user name") }
            guard password.count <= 255 else { throw .tooLong("the proxy's password") }
            authentication = [1, UInt8(user.count)] + user + [UInt8(password.count)] + password
        } else {
            authentication = nil
        }
    }

    /// The first message: the methods offered.
    var opening: [UInt8] {
        authentication == nil ? [5, 1, 0] : [5, 2, 0, 2]
    }

    /// Reads what it can of `received` (the proxy's bytes not read yet), removing what it
    /// read, and says what to do next.
    mutating func advance(_ received: inout [UInt8]) throws(Refusal) -> Step {
        switch state {
        case .method:
            guard received.count >= 2 else { return .read }
            guard received[0] == 5 else { throw .unreadable }
            let method = received[1]
            received.removeFirst(2)
            switch method {
            case 0:
                state = .reply
                return .send(request)
            case 2:
                // Offered only with credentials.
                guard let authentication else { throw .unreadable }
                state = .authentication
                return .send(authentication)
            case 0xFF:
                throw .noAcceptableMethod
            default:
                throw .unreadable
            }
        case .authentication:
            guard received.count >= 2 else { return .read }
            // RFC 1929 says version 1; some proxies answer 5.
            guard received[0] == 1 || received[0] == 5 else { throw .unreadable }
            guard received[1] == 0 else { throw .credentials }
            received.removeFirst(2)
            state = .reply
            return .send(request)
        case .reply:
            guard received.count >= 2 else { return .read }
            guard received[0] == 5 else { throw .unreadable }
            guard received[1] == 0 else { throw .reply(received[1]) }
            guard received.count >= 5 else { return .read }
            let length: Int
            switch received[3] {
            case 1: length = 4 + 4 + 2
            case 4: length = 4 + 16 + 2
            case 3: length = 4 + 1 + Int(received[4]) + 2
            default: throw .unreadable
            }
            guard received.count >= length else { return .read }
            received.removeFirst(length)
            state = .established
            return .established
        case .established:
            return .established
        }
    }
}

extension SOCKS5Handshake.Refusal {
    /// The error of a tunnel to `host`:`port` that `proxy` did not open; nothing was sent to
    /// the origin.
    func error(host: String, port: Int, proxy: Proxy?) -> CourierError {
        let named = proxy.map { "The SOCKS5 proxy \($0.host):\($0.port)" } ?? "The SOCKS5 proxy"
        var error: CourierError
        switch self {
        case .noAcceptableMethod:
            error = CourierError(
                .proxy,
                "\(named) accepts none of the ways to sign in that Courier offered (none\(proxy?.credentials == nil ? "" : ", or a user name and password")); give the proxy the credentials it expects."
            )
        case .credentials:
            error = CourierError(
                .proxy,
                "\(named) refused its user name and password; check the proxy's credentials (in ClientConfiguration.proxy, or the URL the environment or the command line gives)."
            )
        case .reply(let code):
            error = CourierError(.proxy, "\(named) could not connect to \(host):\(port): \(Self.meaning(of: code)) (reply \(code)).")
        case .unreadable:
            error = CourierError(.proxy, "\(named) did not answer as a SOCKS5 proxy; check that it is one (an HTTP proxy is written http://).")
        case .noAnswer:
            error = CourierError(.proxy, "\(named) did not answer in time, or closed the connection; check that it is a running SOCKS5 proxy.")
        case .tooLong(let what):
            error = CourierError(.proxy, "\(named) cannot be sent \(what): SOCKS5 carries at most 255 bytes.")
        }
        error.requestMayHaveBeenSent = false
        error.proxy = proxy
        return error
    }

    /// The meaning of a reply code of RFC 1928 §6.
    static func meaning(of code: UInt8) -> String {
        switch code {
        case 1: "the proxy failed"
        case 2: "its rules do not allow the connection"
        case 3: "the network is unreachable"
        case 4: "the host is unreachable"
        case 5: "the connection was refused"
        case 6: "the connection timed out"
        case 7: "the proxy does not support CONNECT"
        case 8: "the proxy does not support the address type"
        default: "an unknown failure"
        }
    }
}
