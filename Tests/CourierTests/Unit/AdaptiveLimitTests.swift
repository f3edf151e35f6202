import Testing

@testable import Courier

@Suite("Adaptive limit")
struct AdaptiveLimitTests {
    typealias Sample = AdaptiveLimit.Sample

    static func limiter(
        initial: Int, minimum: Int = 1, maximum: Int = 100, tolerance: Double = 2
    ) -> AdaptiveLimit {
        AdaptiveLimit(
            AdaptiveConcurrency(initialLimit: initial, minimumLimit: minimum, latencyTolerance: tolerance),
            maximum: maximum
        )
    }

    static func good(_ milliseconds: Int = 10) -> Sample {
        Sample(latency: .milliseconds(milliseconds), outcome: .response(status: 200))
    }

    static let overload = Sample(latency: .milliseconds(10), outcome: .response(status: 503))

    @Test func settingsOutOfRangeAreBroughtIntoBounds() {
        let high = AdaptiveLimit(AdaptiveConcurrency(initialLimit: 50, minimumLimit: 0), maximum: 6)
        #expect(high.limit == 6 && high.minimum == 1 && high.maximum == 6)
        let belowMinimum = AdaptiveLimit(AdaptiveConcurrency(initialLimit: 1, minimumLimit: 3), maximum: 6)
        #expect(belowMinimum.limit == 3)
        let minimumAboveMaximum = AdaptiveLimit(AdaptiveConcurrency(initialLimit: 2, minimumLimit: 10), maximum: 4)
        #expect(minimumAboveMaximum.minimum == 4 && minimumAboveMaximum.limit == 4)
        let noMaximum = AdaptiveLimit(AdaptiveConcurrency(), maximum: 0)
        #expect(noMaximum.maximum == 1 && noMaximum.limit == 1)
    }

    @Test func growsByOneAfterAsManySuccessesAtTheLimitAsTheLimit() {
        var limiter = Self.limiter(initial: 2)
        limiter.record(Self.good(), inFlight: 2)
        #expect(limiter.limit == 2)
        limiter.record(Self.good(), inFlight: 2)
        #expect(limiter.limit == 3)
        limiter.record(Self.good(), inFlight: 3)
        limiter.record(Self.good(), inFlight: 5)
        #expect(limiter.limit == 3)
        limiter.record(Self.good(), inFlight: 3)
        #expect(limiter.limit == 4)
    }

    @Test func aHostThatDoesNotUseItsLimitDoesNotGrow() {
        var limiter = Self.limiter(initial: 3)
        for _ in 0..<1_000 { limiter.record(Self.good(), inFlight: 2) }
        #expect(limiter.limit == 3)
        for _ in 0..<3 { limiter.record(Self.good(), inFlight: 3) }
        #expect(limiter.limit == 4)
    }

    @Test func neverGrowsPastTheMaximum() {
        var limiter = Self.limiter(initial: 1, maximum: 4)
        for _ in 0..<1_000 { limiter.record(Self.good(), inFlight: 10) }
        #expect(limiter.limit == 4)
    }

    @Test(arguments: [
        AdaptiveLimit.Outcome.connectionFailureOrTimeout, .response(status: 429), .response(status: 503),
    ])
    func eachSignOfOverloadShrinksTheLimitByTheRatio(outcome: AdaptiveLimit.Outcome) {
        var limiter = Self.limiter(initial: 40)
        limiter.record(Sample(latency: .milliseconds(5), outcome: outcome), inFlight: 40)
        #expect(limiter.limit == 36)
        limiter.record(Sample(latency: .milliseconds(5), outcome: outcome), inFlight: 1)
        #expect(limiter.limit == 32)  // 32.4, rounded down
    }

    @Test func aSmallLimitShrinksByAtLeastOne() {
        var limiter = AdaptiveLimit(AdaptiveConcurrency(initialLimit: 4, backoffRatio: 1), maximum: 6)
        limiter.record(Self.overload, inFlight: 4)
        #expect(limiter.limit == 3)
    }

    @Test(arguments: [
        AdaptiveLimit.Outcome.inconclusive, .response(status: 500), .response(status: 404), .response(status: 302),
    ])
    func otherOutcomesDoNotShrinkTheLimit(outcome: AdaptiveLimit.Outcome) {
        var limiter = Self.limiter(initial: 5)
        for _ in 0..<20 { limiter.record(Sample(latency: .milliseconds(10), outcome: outcome), inFlight: 1) }
        #expect(limiter.limit == 5)
    }

    @Test func aCancelledExchangeDoesNotCountTowardGrowth() {
        var limiter = Self.limiter(initial: 1)
        limiter.record(Sample(latency: .milliseconds(10), outcome: .inconclusive), inFlight: 1)
        #expect(limiter.limit == 1)
        limiter.record(Self.good(), inFlight: 1)
        #expect(limiter.limit == 2)
    }

    @Test func aResponseSlowerThanTheToleranceShrinksTheLimit() {
        var limiter = Self.limiter(initial: 4)
        limiter.record(Self.good(10), inFlight: 1)
        limiter.record(Self.good(20), inFlight: 1)  // twice the fastest: within the tolerance
        #expect(limiter.limit == 4)
        limiter.record(Self.good(21), inFlight: 1)
        #expect(limiter.limit == 3)
    }

    @Test func anInfiniteToleranceIgnoresLatency() {
        var limiter = Self.limiter(initial: 4, tolerance: .infinity)
        limiter.record(Self.good(1), inFlight: 1)
        limiter.record(Self.good(10_000), inFlight: 1)
        #expect(limiter.limit == 4)
    }

    @Test func neverShrinksBelowTheMinimum() {
        var limiter = Self.limiter(initial: 6, minimum: 2)
        var seen: [Int] = []
        for _ in 0..<6 {
            limiter.record(Self.overload, inFlight: 6)
            seen.append(limiter.limit)
        }
        #expect(seen == [5, 4, 3, 2, 2, 2])
        var single = Self.limiter(initial: 1)
        single.record(Self.overload, inFlight: 1)
        #expect(single.limit == 1)
    }

    @Test func aShrinkRestartsTheCountTowardGrowth() {
        var limiter = Self.limiter(initial: 3)
        limiter.record(Self.good(), inFlight: 3)
        limiter.record(Self.good(), inFlight: 3)
        limiter.record(Self.overload, inFlight: 3)
        #expect(limiter.limit == 2)
        limiter.record(Self.good(), inFlight: 2)
        #expect(limiter.limit == 2, "the two successes before the shrink no longer count")
        limiter.record(Self.good(), inFlight: 2)
        #expect(limiter.limit == 3)
    }

    @Test func theFastestLatencyIsForgottenAfterTwoWindows() {
        var limiter = Self.limiter(initial: 5, maximum: 5)
        limiter.record(Self.good(1), inFlight: 5)
        // The origin became ten times slower for good: the limit drops to the minimum…
        let window = AdaptiveLimit.FastestRecent.window
        for _ in 0..<(2 * window - 1) { limiter.record(Self.good(10), inFlight: 1) }
        #expect(limiter.limit == 1)
        // …and once the 1 ms response has left the window, 10 ms is the new normal.
        limiter.record(Self.good(10), inFlight: 1)
        #expect(limiter.limit == 2)
    }

    @Test func failuresAreSortedIntoOverloadAndInconclusive() {
        #expect(AdaptiveLimit.Outcome(failure: CourierError(.timeout, "t")) == .connectionFailureOrTimeout)
        #expect(AdaptiveLimit.Outcome(failure: CourierError(.connectionFailed, "c")) == .connectionFailureOrTimeout)
        #expect(AdaptiveLimit.Outcome(failure: CourierError(.cancelled, "x")) == .inconclusive)
        #expect(AdaptiveLimit.Outcome(failure: CourierError(.tls, "x")) == .inconclusive)
        #expect(AdaptiveLimit.Outcome(failure: CancellationError()) == .inconclusive)
    }
}
