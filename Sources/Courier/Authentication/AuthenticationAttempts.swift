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

    /// Called on each 401. `credentialsSent` says whether the refused request carried
    /// credentials, `stale` whether the challenge only said its nonce expired.
    mutating func refused(credentialsSent: Bool, stale: Bool) -> Decision {
        guard credentialsSent else {
            challenges += 1
            // A server that challenges again and again without ever getting credentials has
            // nothing Courier can answer.
            return challenges <= Authentication.maximumFailedAttempts ? .answer : .giveUp
        }
        if stale, staleRetries < AuthenticationAttempts.maximumStaleRetries {
            staleRetries += 1
            return .answer
        }
        failures += 1
        return failures < Authentication.maximumFailedAttempts ? .answer : .giveUp
    }
}
