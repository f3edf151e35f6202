import Courier
import Foundation

/// What an attempt's answer means for a queued record.
enum QueueDecision: Equatable {
    /// A final response: keep it and finish the record.
    case delivered
    /// A final failure: keep it as the result, never send again.
    case failed
    /// Send again after this wait.
    case retry(after: Duration)
    /// The host could not be reached: probe it after this wait, then send.
    case unreachable(after: Duration)

    /// Statuses that ask to try again later, whatever the retry policy lists: 408 Request
    /// Timeout, 409 Conflict (a request with the same key is still being processed), 425 Too
    /// Early and 429 Too Many Requests.
    static let retryLaterStatuses: Set<Int> = [408, 409, 425, 429]

    /// Decides after attempt number `attempts`.
    ///
    /// - Parameters:
    ///   - status: the response's status, when one arrived.
    ///   - retryAfter: its `Retry-After` header.
    ///   - error: the failure, when no response arrived.
    ///   - jitter: a random draw in `0..<1` for the backoff.
    static func decide(
        status: Int?, retryAfter: String?, error: CourierError?, attempts: Int, policy: CourierRetryPolicy, jitter: Double, now: Date
    ) -> QueueDecision {
        let backoff = RetryStateMachine(policy: policy, attempts: attempts).backoff(jitter: jitter)
        let exhausted = attempts >= policy.maximumAttempts
        if let status {
            let retryable = retryLaterStatuses.contains(status) || policy.retryableStatusCodes.contains(status)
            if retryable {
                guard !exhausted else { return .failed }
                if status == 429 || status == 503, let retryAfter,
                    let asked = RetryStateMachine.delay(retryAfter: retryAfter, now: now), asked <= policy.maximumRetryAfter
                {
                    return .retry(after: asked)
                }
                return .retry(after: backoff)
            }
            return status >= 400 ? .failed : .delivered
        }
        guard let error else { return .failed }
        // With its key, a request is safe to send again after any failure of the exchange itself.
        let retryable = [.connectionFailed, .timeout, .transport].contains(error.kind) || policy.retryableErrors.contains(error.kind)
        guard retryable, !exhausted else { return .failed }
        if error.kind == .connectionFailed && !error.requestMayHaveBeenSent { return .unreachable(after: backoff) }
        return .retry(after: backoff)
    }
}
