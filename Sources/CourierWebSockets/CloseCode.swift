import NIOCore
import NIOWebSocket

extension CourierWebSocket {
    /// The status code of a close frame (RFC 6455 §7.4).
    public struct CloseCode: Sendable, Hashable, CustomStringConvertible {
        /// The code's number.
        public let rawValue: UInt16

        /// A code by its number: 1000–1003, 1007–1011 and 3000–4999 may be sent.
        public init(_ rawValue: UInt16) {
            self.rawValue = rawValue
        }

        /// 1000: the purpose of the connection was fulfilled.
        public static let normalClosure = CloseCode(1000)
        /// 1001: the endpoint is going away (a server shutting down, a page closed).
        public static let goingAway = CloseCode(1001)
        /// 1002: a protocol error.
        public static let protocolError = CloseCode(1002)
        /// 1003: a kind of data the endpoint cannot accept.
        public static let unacceptableData = CloseCode(1003)
        /// 1007: data inconsistent with its message type (text that is not UTF-8).
        public static let dataInconsistentWithMessage = CloseCode(1007)
        /// 1008: a message that violates the endpoint's policy.
        public static let policyViolation = CloseCode(1008)
        /// 1009: a message too large to process.
        public static let messageTooLarge = CloseCode(1009)
        /// 1011: the server met an unexpected condition.
        public static let unexpectedServerError = CloseCode(1011)

        public var description: String { String(rawValue) }

        var errorCode: WebSocketErrorCode { WebSocketErrorCode(codeNumber: Int(rawValue)) }

        init(_ code: WebSocketErrorCode) {
            var buffer = ByteBuffer()
            buffer.write(webSocketErrorCode: code)
            self.init(buffer.readInteger(as: UInt16.self) ?? 1000)
        }
    }

    /// The close frame the server sent: its code and reason.
    public struct Closure: Sendable, Hashable {
        /// The code; ``CloseCode`` 1005 when the frame had none.
        public var code: CloseCode
        /// The reason, possibly empty.
        public var reason: String

        /// A close frame's code and reason.
        public init(code: CloseCode, reason: String) {
            self.code = code
            self.reason = reason
        }
    }
}
