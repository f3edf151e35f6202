import Courier

extension CourierWebSocket {
    /// How a WebSocket connection is set up and kept.
    public struct Configuration: Sendable {
        /// The largest frame accepted, in bytes; a larger one closes the connection with 1009.
        /// Messages sent are cut into frames of at most this size. 16 MiB by default, as
        /// servers commonly send a message as one frame.
        public var maximumFrameSize: Int = 16 << 20
        /// The largest message accepted, its frames put together (and inflated, with
        /// compression), in bytes. 16 MiB by default.
        public var maximumMessageSize: Int = 16 << 20
        /// How often the client pings the server; a server that has not answered the last ping
        /// when the next is due ends the connection (``Courier/CourierError/Kind/timeout``).
        /// `nil` sends no pings. 30 seconds by default.
        public var pingInterval: Duration? = .seconds(30)
        /// How long the client waits for the server's close frame after sending its own,
        /// before it closes the connection. 10 seconds by default.
        public var closeTimeout: Duration = .seconds(10)
        /// Whether to offer permessage-deflate (RFC 7692); used when the server accepts it.
        /// On by default.
        public var compression: Bool = true
        /// The subprotocols offered (`Sec-WebSocket-Protocol`), most wanted first; the server
        /// picks one or none. None by default.
        public var subprotocols: [String] = []

        /// The default configuration.
        public init() {}

        /// Refuses values no connection can run with.
        func validate() throws(CourierError) {
            func refuse(_ what: String) -> CourierError {
                CourierError(.invalidConfiguration, "CourierWebSocket.Configuration.\(what).")
            }
            guard (1...(1 << 30)).contains(maximumFrameSize) else { throw refuse("maximumFrameSize must be between 1 byte and 1 GiB; it is \(maximumFrameSize)") }
            guard (1...(1 << 32)).contains(maximumMessageSize) else {
                throw refuse("maximumMessageSize must be between 1 byte and 4 GiB; it is \(maximumMessageSize)")
            }
            if let pingInterval, pingInterval < .milliseconds(10) {
                throw refuse("pingInterval must be at least 10 ms, or nil for no pings; it is \(pingInterval)")
            }
            guard closeTimeout >= .zero else { throw refuse("closeTimeout must not be negative; it is \(closeTimeout)") }
        }
    }
}
