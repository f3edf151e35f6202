/// One origin's limit on requests in flight, adapted from what its exchanges show: additive
/// increase, multiplicative decrease (AIMD), within fixed bounds.
///
/// A pure value fed one ``Sample`` per finished exchange, so tests drive it without a clock.
///
/// - Growth: a good exchange that ends while the origin has at least ``limit`` exchanges in
///   flight (itself included) counts toward growth; after ``limit`` of them the limit grows by
///   one. An origin that never uses its whole limit keeps it.
/// - Shrinking: a sign of overload multiplies the limit by the backoff ratio, rounded down,
///   and at least by one less, and clears the count toward growth. The signs: a connection
///   that fails or times out, a 429 or 503 response, or a response slower than the latency
///   tolerance times the fastest of the origin's recent responses (``FastestRecent``).
/// - Bounds: always from ``minimum`` to ``maximum``.
/// - Anything else (a cancellation, a TLS failure…) says nothing of the origin's load and
///   changes nothing.
struct AdaptiveLimit: Equatable {
    /// How one exchange with the origin ended, and how long it took.
    struct Sample: Hashable {
        var latency: Duration
        var outcome: Outcome
    }

    /// How one exchange ended.
    enum Outcome: Hashable {
        /// A response arrived with this status.
        case response(status: Int)
        /// The connection could not be opened, broke, or timed out.
        case connectionFailureOrTimeout
        /// The exchange ended in a way that says nothing of the origin's load.
        case inconclusive
    }

    /// The lowest time among the last `window` to `2 × window` responses other than 429 and
    /// 503: the fastest of the current batch of `window` responses and of the one before it.
    struct FastestRecent: Equatable {
        /// Responses per batch.
        static let window = 50
        private var current: Duration?
        private var previous: Duration?
        private var countInCurrent = 0

        /// The fastest recent response time; `nil` before the first.
        var value: Duration? {
            switch (current, previous) {
            case (let current?, let previous?): min(current, previous)
            case (let current, let previous): current ?? previous
            }
        }

        mutating func add(_ latency: Duration) {
            current = min(current ?? latency, latency)
            countInCurrent += 1
            if countInCurrent == Self.window {
                previous = current
                current = nil
                countInCurrent = 0
            }
        }
    }

    /// How many exchanges may be in flight to the origin now.
    private(set) var limit: Int
    let minimum: Int
    let maximum: Int
    private let backoffRatio: Double
    private let latencyTolerance: Double
    /// Good exchanges at the full limit since the last change.
    private var successes = 0
    private var fastest = FastestRecent()

    /// A limiter with `settings`, bounded above by `maximum`; settings out of range are
    /// brought into it.
    init(_ settings: AdaptiveConcurrency, maximum: Int) {
        self.maximum = max(1, maximum)
        minimum = min(max(1, settings.minimumLimit), self.maximum)
        limit = min(max(minimum, settings.initialLimit), self.maximum)
        backoffRatio = settings.backoffRatio.isNaN ? 0.9 : min(max(settings.backoffRatio, 0), 1)
        latencyTolerance = settings.latencyTolerance.isNaN ? 2 : max(1, settings.latencyTolerance)
    }

    /// Takes in one finished exchange; `inFlight` counts the origin's exchanges in flight when
    /// it ended, itself included.
    mutating func record(_ sample: Sample, inFlight: Int) {
        switch sample.outcome {
        case .inconclusive:
            return
        case .connectionFailureOrTimeout, .response(status: 429), .response(status: 503):
            decrease()
        case .response:
            let slow = fastest.value.map { isSlow(sample.latency, fastest: $0) } ?? false
            fastest.add(sample.latency)
            if slow {
                decrease()
            } else if inFlight >= limit {
                increase()
            }
        }
    }

    private func isSlow(_ latency: Duration, fastest: Duration) -> Bool {
        guard fastest > .zero else { return false }
        return latency / fastest > latencyTolerance
    }

    private mutating func increase() {
        successes += 1
        guard successes >= limit else { return }
        successes = 0
        limit = min(maximum, limit + 1)
    }

    private mutating func decrease() {
        successes = 0
        let scaled = Int((Double(limit) * backoffRatio).rounded(.down))
        limit = max(minimum, min(limit - 1, scaled))
    }
}

extension AdaptiveLimit.Outcome {
    /// The outcome of an exchange that threw `error`.
    init(failure error: any Error) {
        switch (error as? CourierError)?.kind {
        case .connectionFailed?, .timeout?: self = .connectionFailureOrTimeout
        default: self = .inconclusive
        }
    }
}
