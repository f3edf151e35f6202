import NIOConcurrencyHelpers

/// A thread-safe increasing counter.
final class IDCounter: Sendable {
    private let state = NIOLockedValueBox<UInt64>(0)

    func next() -> UInt64 {
        state.withLockedValue { value in
            value += 1
            return value
        }
    }
}
