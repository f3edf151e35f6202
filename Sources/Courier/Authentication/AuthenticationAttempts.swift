/// Counts, for one request, how often its credentials were refused, and decides whether to
/// answer the next challenge or give up. A pure value, driven by the client.
struct AuthenticationAttempts: Sendable {
    /// What to do after a 401.
    enum Decision: Equatable {
        /// Send the request again with new credentials.
        case answer
        /// Give up: the credentials were refused too often.
        case giveUp
    }

    /// How many expired-nonce answers (`stale=true`) are taken before they count as refusals.
    static let maximumStaleRetries = 3

    /// 401 answers to requests that carried credentials, stale ones excepted.
    private(set) var failures = 0
    /// 401 answers that only said the nonce expired.
    private(set) var staleRetries = 0
    /// 401 answers to requests that carried no credentials.
    private(set) var challenges = 0
    /// The refreshed bearer token to send next, once refreshed.
    var refreshedToken: String?

    /// Whether this request has already answered a challenge of its own (rather than only
    /// sent credentials up front, from what earlier requests learned).
    private(set) var answeredChallenge = false

    /// Called on each 401. `credentialsSent` says whether the refused request carried
    /// credentials, `stale` whether the challenge only said its nonce expired, and
    /// `retryMayHelp` whether answering the new challenge would send something other than
    /// what was refused: a challenge in another scheme (Digest after Basic sent up front), or
    /// a Digest challenge when the refused answer was computed from an earlier request's.
    ///
    /// Credentials refused when sending them again would send the same thing are wrong:
    /// repeating them cannot help, and a server that locks accounts after a few failures would
    /// count every copy. That refusal is final. Otherwise the challenge is answered, up to
    /// ``Authentication/maximumFailedAttempts`` refusals in all.
    mutating func refused(credentialsSent: Bool, stale: Bool, retryMayHelp: Bool = false) -> Decision {
        guard credentialsSent else {
            challenges += 1
            // A server that challenges again and again without ever getting credentials has
            // nothing Courier can answer.
            return answer(if: challenges <= Authentication.maximumFailedAttempts)
        }
        if stale, staleRetries < AuthenticationAttempts.maximumStaleRetries {
            staleRetries += 1
            return answer(if: true)
        }
        failures += 1
        return answer(if: retryMayHelp && failures < Authentication.maximumFailedAttempts)
    }

    private mutating func answer(if allowed: Bool) -> Decision {
        guard allowed else { return .giveUp }
        answeredChallenge = true
        return .answer
    }
}
