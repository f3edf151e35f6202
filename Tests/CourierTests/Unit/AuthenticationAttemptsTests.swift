import Testing

@testable import Courier

/// The per-request count of refused credentials (MKNetworkKit's rule: three, then give up).
@Suite("Authentication attempts")
struct AuthenticationAttemptsTests {
    @Test func threeRefusalsThenGiveUp() {
        var attempts = AuthenticationAttempts()
        #expect(attempts.refused(credentialsSent: false, stale: false) == .answer)
        #expect(attempts.refused(credentialsSent: true, stale: false) == .answer)
        #expect(attempts.refused(credentialsSent: true, stale: false) == .answer)
        #expect(attempts.refused(credentialsSent: true, stale: false) == .giveUp)
        #expect(attempts.failures == 3)
    }

    @Test func staleNoncesAreNotRefusals() {
        var attempts = AuthenticationAttempts()
        #expect(attempts.refused(credentialsSent: true, stale: false) == .answer)
        #expect(attempts.refused(credentialsSent: true, stale: true) == .answer)
        #expect(attempts.refused(credentialsSent: true, stale: false) == .answer)
        #expect(attempts.failures == 2)
        #expect(attempts.staleRetries == 1)
        #expect(attempts.refused(credentialsSent: true, stale: false) == .giveUp)
    }

    /// Feeds the same 401 until the attempts give up (at most 20 times); returns how many were answered.
    private func answeredInARow(credentialsSent: Bool, stale: Bool) -> (answered: Int, attempts: AuthenticationAttempts) {
        var attempts = AuthenticationAttempts()
        var answered = 0
        while answered < 20, attempts.refused(credentialsSent: credentialsSent, stale: stale) == .answer { answered += 1 }
        return (answered, attempts)
    }

    @Test func endlessStaleAnswersStillEnd() {
        let run = answeredInARow(credentialsSent: true, stale: true)
        #expect(run.answered == AuthenticationAttempts.maximumStaleRetries + Authentication.maximumFailedAttempts - 1)
    }

    @Test func challengesWithoutCredentialsAreBoundedToo() {
        let run = answeredInARow(credentialsSent: false, stale: false)
        #expect(run.answered == Authentication.maximumFailedAttempts)
        #expect(run.attempts.failures == 0)
    }
}
