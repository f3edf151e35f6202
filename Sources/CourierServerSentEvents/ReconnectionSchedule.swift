/// The waits between the connections of one event stream: a pure state machine that
/// ``EventSource`` feeds with how each connection ended.
struct ReconnectionSchedule {
    let policy: EventStream.Reconnection
    /// The wait after a connection that delivered something: the policy's delay until the
    /// server sets its own, held to the policy's maximum.
    private(set) var reconnectionTime: Duration
    /// Attempts that failed in a row, since the last connection that delivered something.
    private(set) var failures = 0

    init(policy: EventStream.Reconnection) {
        self.policy = policy
        self.reconnectionTime = policy.delay
    }

    /// The server set a reconnection time with a `retry` field (or `nil`: it did not).
    mutating func serverSet(_ time: Duration?) {
        guard let time else { return }
        reconnectionTime = min(time, policy.maximumDelay)
    }

    /// A connection that delivered part of its body ended: the wait before the next one, or
    /// `nil` when the stream does not reconnect.
    mutating func afterLiveConnection() -> Duration? {
        failures = 0
        return policy.maximumAttempts > 0 ? reconnectionTime : nil
    }

    /// An attempt failed, or ended without a byte: the wait before the next one, doubled for
    /// each failure in a row after the first, or `nil` once the attempts have run out.
    mutating func afterFailedAttempt() -> Duration? {
        failures += 1
        guard failures <= policy.maximumAttempts else { return nil }
        var wait = reconnectionTime
        for _ in 1..<failures {
            guard wait < policy.maximumDelay / 2 else { return policy.maximumDelay }
            wait = wait * 2
        }
        return min(wait, policy.maximumDelay)
    }
}
