/// Why bytes could not be decoded as an image. ``ImageLoader`` throws it as the
/// `underlyingError` of a `CourierError` of kind `decodingFailed`, whose message repeats it.
public struct ImageDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The class of failure.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// Not an image format this platform decodes (see the platform table in the README).
        public static let unsupportedFormat = Reason("unsupportedFormat")
        /// The bytes break the format's rules or end before the image does.
        public static let malformed = Reason("malformed")
        /// The image is larger than ``ImageLoader/Limits`` allows; nothing was decoded.
        public static let tooLarge = Reason("tooLarge")
        /// Memory for the decode could not be had.
        public static let outOfMemory = Reason("outOfMemory")

        /// The reason's name, e.g. `tooLarge`.
        public var description: String { name }
    }

    /// The class of failure.
    public let reason: Reason
    /// What went wrong, in words.
    public let message: String

    /// Creates an error.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// The reason and the message.
    public var description: String { "\(reason): \(message)" }
}
