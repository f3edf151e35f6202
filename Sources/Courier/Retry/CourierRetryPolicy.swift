/// When and how soon a failed request is sent again.
///
/// Retries are safe by construction: only idempotent methods (GET, HEAD, PUT, DELETE, OPTIONS,
/// TRACE) or requests carrying an `Idempotency-Key` header are retried once any byte may have
/// reached the server; any other request is retried only when its connection could not even
/// be opened.
///
/// The wait before each retry is exponential backoff with full jitter: a random time between
/// zero and `baseDelay × 2^(retry − 1)`, capped by ``maximumDelay``. On 429 and 503, a
/// `Retry-After` header (seconds or an HTTP date) replaces the backoff; one asking for more
/// than ``maximumRetryAfter`` ends the retries, since waiting less would be pointless.
///
/// ```swift
/// configuration.retryPolicy = CourierRetryPolicy(maximumAttempts: 4)
/// ```
public struct CourierRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first one included; 1 means no retry.
    public var maximumAttempts: Int
    /// The backoff of the first retry, before jitter.
    public var baseDelay: Duration
    /// The longest single backoff, before jitter.
    public var maximumDelay: Duration
    /// The most time spent waiting between attempts, all retries together.
    public var maximumTotalDelay: Duration
    /// The longest `Retry-After` honoured.
    public var maximumRetryAfter: Duration
    /// Statuses that are retried.
    public var retryableStatusCodes: Set<Int>
    /// Error kinds that are retried.
    public var retryableErrors: Set<CourierError.Kind>

    /// Creates a policy.
    public init(
        maximumAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(250),
        maximumDelay: Duration = .seconds(30),
        maximumTotalDelay: Duration = .seconds(60),
        maximumRetryAfter: Duration = .seconds(120),
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableErrors: Set<CourierError.Kind> = [.connectionFailed, .timeout]
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.maximumTotalDelay = maximumTotalDelay
        self.maximumRetryAfter = maximumRetryAfter
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableErrors = retryableErrors
    }

    /// Never retry.
    public static let none = CourierRetryPolicy(maximumAttempts: 1)

    /// Up to `retries` retries with the default backoff.
    public static func retries(_ retries: Int) -> CourierRetryPolicy {
        let (attempts, overflow) = max(0, retries).addingReportingOverflow(1)
        return CourierRetryPolicy(maximumAttempts: overflow ? .max : attempts)
    }
}
