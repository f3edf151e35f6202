import Foundation
import Testing

@testable import Courier

@Suite("Retry decisions")
struct RetryStateMachineTests {
    static let now = Date(timeIntervalSince1970: 1_795_219_200)
    static let policy = CourierRetryPolicy(
        maximumAttempts: 10, baseDelay: .milliseconds(100), maximumDelay: .seconds(1),
        maximumTotalDelay: .seconds(60), maximumRetryAfter: .seconds(120)
    )

    static func failure(_ kind: CourierError.Kind, sent: Bool = true) -> RetryStateMachine.Outcome {
        var error = CourierError(kind, "test")
        error.requestMayHaveBeenSent = sent
        return .failure(error)
    }

    @Test func backoffDoublesUpToTheCapAndStaysWithinTheJitterBounds() {
        var machine = RetryStateMachine(policy: Self.policy)
        let caps: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)]
        for cap in caps {
            #expect(machine.backoff(jitter: 0) == .zero)
            #expect(machine.backoff(jitter: 0.5) == cap / 2)
            #expect(machine.backoff(jitter: 0.999_999) <= cap)
            #expect(machine.backoff(jitter: 0.999_999) > cap * 0.99)
            _ = machine.decide(.response(status: 503, retryAfter: nil), repeatable: true, jitter: 0.5, now: Self.now)
        }
    }

    @Test(arguments: [0.0, 0.1, 0.37, 0.5, 0.99])
    func eachDelayIsTheJitterShareOfTheCap(jitter: Double) {
        var machine = RetryStateMachine(policy: Self.policy)
        let first = machine.decide(.response(status: 500, retryAfter: nil), repeatable: true, jitter: jitter, now: Self.now)
        #expect(first == .retry(after: .milliseconds(100) * jitter))
        let second = machine.decide(.response(status: 500, retryAfter: nil), repeatable: true, jitter: jitter, now: Self.now)
        #expect(second == .retry(after: .milliseconds(200) * jitter))
    }

    @Test(arguments: [
        ("7", 503, Duration.seconds(7)),
        ("0", 429, Duration.zero),
        (" 12 ", 429, Duration.seconds(12)),
        ("Sat, 21 Nov 2026 00:00:30 GMT", 503, Duration.seconds(30)),
        ("Fri, 20 Nov 2026 00:00:00 GMT", 503, Duration.zero),  // a date in the past: now
    ])
    func retryAfterReplacesTheBackoffOn429And503(header: String, status: Int, expected: Duration) {
        var machine = RetryStateMachine(policy: Self.policy)
        let decision = machine.decide(.response(status: status, retryAfter: header), repeatable: true, jitter: 0.9, now: Self.now)
        #expect(decision == .retry(after: expected))
    }

    @Test(arguments: ["soon", "-5", "1.5", "", "Sun, 06 Nov 1994 08:49:37"])
    func invalidRetryAfterFallsBackToTheBackoff(header: String) {
        var machine = RetryStateMachine(policy: Self.policy)
        let decision = machine.decide(.response(status: 503, retryAfter: header), repeatable: true, jitter: 0.5, now: Self.now)
        #expect(decision == .retry(after: .milliseconds(50)))
    }

    @Test func retryAfterIsOnlyReadOn429And503() {
        var machine = RetryStateMachine(policy: Self.policy)
        let decision = machine.decide(.response(status: 500, retryAfter: "30"), repeatable: true, jitter: 0.5, now: Self.now)
        #expect(decision == .retry(after: .milliseconds(50)))
    }

    @Test func aRetryAfterBeyondTheCapEndsTheRetries() {
        var machine = RetryStateMachine(policy: Self.policy)
        #expect(machine.decide(.response(status: 503, retryAfter: "3600"), repeatable: true, jitter: 0.5, now: Self.now) == .stop)
        #expect(machine.decide(.response(status: 503, retryAfter: "99999999999999999999"), repeatable: true, jitter: 0.5, now: Self.now) == .stop)
    }

    @Test func attemptsAreCounted() {
        var machine = RetryStateMachine(policy: CourierRetryPolicy(maximumAttempts: 3))
        #expect(machine.decide(Self.failure(.timeout), repeatable: true, jitter: 0, now: Self.now) != .stop)
        #expect(machine.decide(Self.failure(.timeout), repeatable: true, jitter: 0, now: Self.now) != .stop)
        #expect(machine.decide(Self.failure(.timeout), repeatable: true, jitter: 0, now: Self.now) == .stop)
        #expect(machine.attempts == 3)
        var none = RetryStateMachine(policy: .none)
        #expect(none.decide(Self.failure(.timeout), repeatable: true, jitter: 0, now: Self.now) == .stop)
    }

    @Test func theTotalDelayIsBounded() {
        var policy = Self.policy
        policy.maximumTotalDelay = .seconds(10)
        var machine = RetryStateMachine(policy: policy)
        #expect(machine.decide(.response(status: 503, retryAfter: "6"), repeatable: true, jitter: 0, now: Self.now) == .retry(after: .seconds(6)))
        #expect(machine.decide(.response(status: 503, retryAfter: "5"), repeatable: true, jitter: 0, now: Self.now) == .stop)
        #expect(machine.waited == .seconds(6))
    }

    @Test func aRequestThatIsNotRepeatableIsRetriedOnlyWhenNothingWasSent() {
        var machine = RetryStateMachine(policy: Self.policy)
        #expect(machine.decide(.response(status: 503, retryAfter: "1"), repeatable: false, jitter: 0, now: Self.now) == .stop)
        #expect(machine.decide(Self.failure(.connectionFailed), repeatable: false, jitter: 0, now: Self.now) == .stop)
        #expect(machine.decide(Self.failure(.timeout), repeatable: false, jitter: 0, now: Self.now) == .stop)
        #expect(machine.decide(Self.failure(.connectionFailed, sent: false), repeatable: false, jitter: 0, now: Self.now) == .retry(after: .zero))
        #expect(machine.decide(.response(status: 503, retryAfter: "1"), repeatable: true, jitter: 0, now: Self.now) == .retry(after: .seconds(1)))
    }

    @Test(arguments: [400, 401, 403, 404, 409, 422, 501])
    func otherStatusesAreNotRetried(status: Int) {
        var machine = RetryStateMachine(policy: Self.policy)
        #expect(machine.decide(.response(status: status, retryAfter: "1"), repeatable: true, jitter: 0, now: Self.now) == .stop)
    }

    @Test(arguments: [CourierError.Kind.cancelled, .invalidHeader, .tls, .malformedResponse, .validationFailed, .tooManyRedirects])
    func otherErrorsAreNotRetried(kind: CourierError.Kind) {
        var machine = RetryStateMachine(policy: Self.policy)
        #expect(machine.decide(Self.failure(kind, sent: false), repeatable: true, jitter: 0, now: Self.now) == .stop)
    }

    @Test("backoff never overflows, whatever the delays and the attempt count", arguments: [1, 30, 62, 63, 1000])
    func backoffIsBounded(attempts: Int) {
        let policy = CourierRetryPolicy(maximumAttempts: 2000, baseDelay: .seconds(1_000_000_000), maximumDelay: .seconds(Int64.max / 1_000_000_000))
        let machine = RetryStateMachine(policy: policy, attempts: attempts)
        let delay = machine.backoff(jitter: 1)
        #expect(delay > .zero)
        #expect(delay <= policy.maximumDelay)
        #expect(machine.backoff(jitter: .nan) == .zero)
    }

    @Test("a Retry-After date far in the future is a long but finite wait")
    func farRetryAfterDate() {
        let delay = RetryStateMachine.delay(retryAfter: "Fri, 31 Dec 9999 23:59:59 GMT", now: Self.now)
        #expect(delay != nil)
        #expect(delay! > .seconds(1_000_000))
    }
}
