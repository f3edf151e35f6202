import NIOConcurrencyHelpers

/// A clock for tests: every sleep ends at once, moves the clock forward by the time asked,
/// and is recorded, so that code that waits (retries, backoff) runs instantly and its waits
/// can be checked.
///
/// ```swift
/// let clock = RecordingClock()
/// configuration.clock = clock
/// configuration.retryPolicy = .retries(1)
/// let client = CourierClient(configuration: configuration)
/// _ = try await client.send(CourierRequest<Data>(path: "/flaky?failures=1&retry_after=2"))
/// #expect(clock.sleeps == [.seconds(2)])
/// ```
public final class RecordingClock: Clock, Sendable {
    /// A point on a ``RecordingClock``: the time elapsed since the clock was made.
    public struct Instant: InstantProtocol, Hashable, Sendable {
        /// Time since the clock's start.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = NIOLockedValueBox<(now: Duration, sleeps: [Duration])>((.zero, []))

    /// A clock at offset zero with no sleeps recorded.
    public init() {}

    /// The current instant; it moves only when something sleeps.
    public var now: Instant { Instant(offset: state.withLockedValue { $0.now }) }

    /// Zero: the clock is exact.
    public var minimumResolution: Duration { .zero }

    /// Every sleep so far, as the time asked for, in order.
    public var sleeps: [Duration] { state.withLockedValue { $0.sleeps } }

    /// Records the wait, moves the clock to `deadline`, and returns at once (throwing if the
    /// task is cancelled).
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLockedValue { state in
            state.sleeps.append(max(.zero, deadline.offset - state.now))
            state.now = max(state.now, deadline.offset)
        }
    }
}
