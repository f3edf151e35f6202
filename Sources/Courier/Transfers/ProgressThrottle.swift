/// Decides which progress values reach the caller, so that a fast transfer does not flood it.
///
/// A value passes when it is the first, when it finishes the transfer, when at least
/// ``interval`` has passed since the last value that passed, or when the transfer has moved
/// on by at least ``step`` of its total since then. A value with no new bytes never passes.
/// Pure: the caller supplies the time.
struct ProgressThrottle {
    /// The shortest time between two values, unless ``step`` lets one through sooner.
    var interval: Duration = .milliseconds(100)
    /// The share of the total after which a value passes whatever the time.
    var step: Double = 0.01
    private var last: (bytes: Int64, at: ContinuousClock.Instant)?

    init(interval: Duration = .milliseconds(100), step: Double = 0.01) {
        self.interval = interval
        self.step = step
    }

    /// Whether `progress`, observed at `now`, goes to the caller; `isFinal` marks the end of
    /// the transfer (needed when the total is unknown).
    mutating func admits(_ progress: TransferProgress, at now: ContinuousClock.Instant, isFinal: Bool = false) -> Bool {
        guard let last else {
            self.last = (progress.completedBytes, now)
            return true
        }
        guard progress.completedBytes != last.bytes else { return false }
        let passes: Bool
        if isFinal || progress.isComplete || now - last.at >= interval {
            passes = true
        } else if let total = progress.totalBytes, total > 0 {
            passes = Double(progress.completedBytes - last.bytes) >= step * Double(total)
        } else {
            passes = false
        }
        if passes { self.last = (progress.completedBytes, now) }
        return passes
    }

    /// Forgets the last value, for a transfer that starts again from zero.
    mutating func reset() {
        last = nil
    }
}
