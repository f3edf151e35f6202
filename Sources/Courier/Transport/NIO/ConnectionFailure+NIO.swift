import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

extension ConnectionFailure {
    /// What the transport's `error` says happened to the connection, if it says: a name that
    /// did not resolve, a refused or unreachable address, a reset, or a close that came before
    /// the response (`responseStarted` false) or in its middle.
    package static func of(_ error: any Error, responseStarted: Bool) -> ConnectionFailure? {
        let closed: ConnectionFailure = responseStarted ? .cutShort : .emptyReply
        switch error {
        case let error as NIOConnectionError:
            // No attempt was made: the name gave no address.
            guard !error.connectionErrors.isEmpty else { return .hostNotFound }
            let reasons = error.connectionErrors.map { ConnectionFailure.of($0.error, responseStarted: false) }
            return reasons.allSatisfy { $0 == .refused } ? .refused : .unreachable
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: return .refused
            case ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL, ENETDOWN, EHOSTDOWN: return .unreachable
            case ECONNRESET: return .reset
            case EPIPE: return closed
            default: return nil
            }
        case let error as HTTPClientError where error == .remoteConnectionClosed:
            return closed
        case let error as HTTPParserError where error == .invalidEOFState:
            return closed
        case is ExchangeClosed:
            return closed
        case let error as ChannelError:
            switch error {
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed: return closed
            default: return nil
            }
        default:
            return nil
        }
    }
}
