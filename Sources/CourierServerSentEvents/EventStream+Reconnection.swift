import Courier

extension EventStream {
    /// When and how soon an event stream connects again after its connection ends.
    ///
    /// A stream whose response ended, or whose connection dropped or timed out, connects
    /// again after the reconnection time, sending the id of the last event it delivered as
    /// `Last-Event-ID` so the server can carry on from there. The reconnection time is
    /// ``delay`` until the server sets its own with a `retry` field. A connection that fails,
    /// or ends without sending a byte, is a failed attempt, followed by another one: the first
    /// after the reconnection time, each later one after twice the wait before it (up to
    /// ``maximumDelay``), at most ``maximumAttempts`` times in a row; the failure after those
    /// ends the stream.
    ///
    /// A stream never reconnects after a `204 No Content` (the server's way to say "stop"), a
    /// status outside 200–299 that the client's retry policy did not cure, or a response that
    /// is not `text/event-stream`: it ends (after a 204) or throws.
    public struct Reconnection: Sendable, Hashable {
        /// The wait before connecting again, until the server sets its own reconnection time
        /// with a `retry` field; 3 seconds by default.
        public var delay: Duration
        /// The longest wait: a server's `retry` and the doubled waits after failed attempts are
        /// held to it; 5 minutes by default.
        public var maximumDelay: Duration
        /// How many times in a row the stream connects again after a failed attempt before a
        /// failure ends it; 10 by default. With 0 the stream never reconnects, not even after
        /// a connection that delivered events.
        public var maximumAttempts: Int

        /// Creates a reconnection policy.
        public init(delay: Duration = .seconds(3), maximumDelay: Duration = .seconds(300), maximumAttempts: Int = 10) {
            self.delay = delay
            self.maximumDelay = maximumDelay
            self.maximumAttempts = maximumAttempts
        }

        /// Reconnects with the default waits and attempts; the default for GET requests.
        public static let automatic = Reconnection()

        /// Never reconnects: the stream ends with its response; the default for requests of
        /// other methods, whose reconnection would send them again.
        public static let never = Reconnection(maximumAttempts: 0)

        /// The first setting outside its range, as an error, or `nil`.
        var configurationError: CourierError? {
            if delay < .zero || delay > maximumDelay {
                return CourierError(.invalidConfiguration, "The reconnection delay (\(delay)) must be at least zero and at most maximumDelay (\(maximumDelay)).")
            }
            if maximumDelay > .seconds(86_400) {
                return CourierError(.invalidConfiguration, "The reconnection maximumDelay (\(maximumDelay)) must be at most one day.")
            }
            if maximumAttempts < 0 {
                return CourierError(.invalidConfiguration, "The reconnection maximumAttempts (\(maximumAttempts)) must be zero (never reconnect) or more.")
            }
            return nil
        }
    }
}
