import Testing

@testable import Courier

/// The per-request count of refused credentials: refused when answering again would send the
/// same thing, they are final; otherwise the challenge is answered, up to three refusals in all.
@Suite("Authentication attempts")
struct AuthenticationAttemptsTests {
    @Test func credentialsThatWouldBeSentAgainUnchangedAreFinal() {
        var attempts = AuthenticationAttempts()
        #expect(!attempts.answeredChallenge)
        #expect(attempts.refused(credentialsSent: false, stale: false) == .answer)
        #expect(attempts.answeredChallenge)
        #expect(attempts.refused(credentialsSent: true, stale: false) == .giveUp)
        #expect(attempts.failures == 1)
    }

    @Test func anotherSchemeIsAnsweredUpToThreeRefusals() {
        var attempts = AuthenticationAttempts()
        #expect(attempts.refused(credentialsSent: true, stale: false, retryMayHelp: true) == .answer)
        #expect(attempts.refused(credentialsSent: true, stale: false, retryMayHelp: true) == .answer)
        #expect(attempts.refused(credentialsSent: true, stale: false, retryMayHelp: true) == .giveUp)
        #expect(attempts.failures == Authentication.maximumFailedAttempts)
    }

    @Test func staleNoncesAreNotRefusals() {
        var attempts = AuthenticationAttempts()
        #expect(attempts.refused(credentialsSent: true, stale: true) == .answer)
        #expect(attempts.refused(credentialsSent: true, stale: true) == .answer)
        #expect(attempts.failures == 0)
        #expect(attempts.staleRetries == 2)
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
        #expect(run.answered == AuthenticationAttempts.maximumStaleRetries)
    }

    @Test func challengesWithoutCredentialsAreBoundedToo() {
        let run = answeredInARow(credentialsSent: false, stale: false)
        #expect(run.answered == Authentication.maximumFailedAttempts)
        #expect(run.attempts.failures == 0)
    }
}
