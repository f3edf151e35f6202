extension CourierResponse {
    /// The version of HTTP a response was received over: `HTTP/1.0`, `HTTP/1.1` or `HTTP/2`.
    ///
    /// Its ``description`` is the version as a status line spells it: with a minor version for
    /// HTTP/1 (`HTTP/1.1`), without one from HTTP/2 on (`HTTP/2`), as curl prints it.
    public struct ProtocolVersion: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
        /// The major version: 1 for HTTP/1.1, 2 for HTTP/2.
        public var major: Int
        /// The minor version: 1 for HTTP/1.1, 0 for HTTP/1.0 and HTTP/2.
        public var minor: Int

        /// Creates a version from its two numbers.
        public init(major: Int, minor: Int) {
            self.major = major
            self.minor = minor
        }

        /// HTTP/1.0.
        public static let http10 = ProtocolVersion(major: 1, minor: 0)
        /// HTTP/1.1, the version of responses whose version is not known (such as cache entries
        /// stored before versions were kept).
        public static let http11 = ProtocolVersion(major: 1, minor: 1)
        /// HTTP/2.
        public static let http2 = ProtocolVersion(major: 2, minor: 0)
        /// HTTP/3.
        public static let http3 = ProtocolVersion(major: 3, minor: 0)

        /// `HTTP/1.0`, `HTTP/1.1`, `HTTP/2` or `HTTP/3`.
        public var description: String {
            major >= 2 && minor == 0 ? "HTTP/\(major)" : "HTTP/\(major).\(minor)"
        }

        /// Orders versions by major, then minor number.
        public static func < (lhs: ProtocolVersion, rhs: ProtocolVersion) -> Bool {
            (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
        }
    }
}
