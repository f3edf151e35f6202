import Foundation

/// Decides, attempt by attempt, whether to retry and how long to wait first.
///
/// A pure value: the client reports each attempt's outcome and a jitter draw in `0..<1`, and
/// the machine answers with a decision. Tests drive it without a network or a clock.
package struct RetryStateMachine {
    enum Outcome {
        /// A response arrived (the request was sent).
        case response(status: Int, retryAfter: String?)
        /// The attempt failed.
        case failure(CourierError)
    }

    enum Decision: Equatable {
        /// Wait this long, then send again.
        case retry(after: Duration)
        /// Deliver the outcome as it is.
        case stop
    }

    let policy: CourierRetryPolicy
    /// Attempts made so far.
    private(set) var attempts = 1
    /// Time waited between attempts so far.
    private(set) var waited: Duration = .zero

    init(policy: CourierRetryPolicy) { self.policy = policy }

    /// A machine that has made `attempts` attempts already, for backoffs computed afresh
    /// after a restart (the durable queue).
    package init(policy: CourierRetryPolicy, attempts: Int) {
        self.policy = policy
        self.attempts = max(1, attempts)
    }

    /// - Parameters:
    ///   - repeatable: whether the request may be sent twice (idempotent method, or an
    ///     `Idempotency-Key`).
    ///   - jitter: a random draw in `0..<1` for the backoff.
    ///   - now: the present, for `Retry-After` dates.
    mutating func decide(_ outcome: Outcome, repeatable: Bool, jitter: Double, now: Date) -> Decision {
        guard attempts < policy.maximumAttempts else { return .stop }
        var retryAfter: String?
        switch outcome {
        case .response(let status, let header):
            guard repeatable, policy.retryableStatusCodes.contains(status) else { return .stop }
            if status == 429 || status == 503 { retryAfter = header }
        case .failure(let error):
            guard error.kind != .cancelled, policy.retryableErrors.contains(error.kind) else { return .stop }
            guard repeatable || !error.requestMayHaveBeenSent else { return .stop }
        }
        let delay: Duration
        if let retryAfter, let asked = RetryStateMachine.delay(retryAfter: retryAfter, now: now) {
            guard asked <= policy.maximumRetryAfter else { return .stop }
            delay = asked
        } else {
            delay = backoff(jitter: jitter)
        }
        guard waited + delay <= policy.maximumTotalDelay else { return .stop }
        attempts += 1
        waited += delay
        return .retry(after: delay)
    }

    /// Full jitter over `min(maximumDelay, baseDelay × 2^(attempts − 1))`.
    package func backoff(jitter: Double) -> Duration {
        // In seconds as a Double, so that no multiplication of a Duration can overflow.
        let exponent = Double(max(0, min(attempts - 1, 62)))
        let uncapped = policy.baseDelay.timeInterval * pow(2, exponent)
        let cap = min(uncapped, policy.maximumDelay.timeInterval)
        let seconds = cap * min(max(jitter, 0), 1)
        guard seconds.isFinite, seconds > 0 else { return .zero }
        // At most about 285 years, which fits in nanoseconds.
        return .nanoseconds(Int64((min(seconds, 9e9) * 1e9).rounded()))
    }

    /// `Retry-After` as delay-seconds or an HTTP date (RFC 9110 §10.2.3); `nil` when invalid.
    package static func delay(retryAfter: String, now: Date) -> Duration? {
        let value = retryAfter.trimmingCharacters(in: .whitespaces)
        if !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let seconds = Int64(value) else { return .seconds(Int64.max / 1_000_000_000) }
            return .seconds(seconds)
        }
        guard let date = HTTPDate.parse(value, now: now) else { return nil }
        let interval = min(max(0, date.timeIntervalSince(now)), 1e12)
        return .milliseconds(Int64(interval * 1000))
    }
}
