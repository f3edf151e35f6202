import Foundation
import Logging
import NIOConcurrencyHelpers

/// The authentication stage of a client. The client runs it for every hop of a request until
/// a redirect leaves the first origin, and it looks only at the hop's own origin: it adds the
/// credentials configured for that origin, and answers a 401 from that origin. What it learns from challenges (which
/// scheme an origin wants, its Digest nonce and nonce count) is kept per origin, so that later
/// requests authenticate up front.
package final class Authenticator: Sendable {
    private enum Entry: Sendable {
        case password(user: String, password: String, preemptive: Bool)
        case bearer(TokenRefresher)

        init(_ credential: Credential) {
            switch credential.secret {
            case .password(let user, let password, let preemptive): self = .password(user: user, password: password, preemptive: preemptive)
            case .bearer(let provider): self = .bearer(TokenRefresher(provider: provider))
            }
        }
    }

    /// The scheme an origin asked for, and its Digest state.
    private enum Learned: Sendable {
        case basic
        case digest(challenge: DigestChallenge, nonceCount: UInt32, clientNonce: String)
    }

    /// What the authenticator added to a hop.
    enum Sent: Sendable, Equatable {
        case basic
        case digest
        case bearer(String)
    }

    /// The strongest challenge Courier can answer.
    enum Choice: Equatable {
        case digest(DigestChallenge)
        case basic
    }

    private let entries: [String: Entry]
    private let learned = NIOLockedValueBox<[String: Learned]>([:])
    private let logger: Logger

    /// An authenticator for the configuration's credentials; `nil` when it has none.
    init?(configuration: ClientConfiguration) {
        var entries: [String: Entry] = [:]
        for (scope, credential) in configuration.authentication.entries {
            let url: URL?
            switch scope {
            case .baseURL: url = configuration.baseURL
            case .origin(let origin): url = origin
            }
            guard let url else { continue }
            entries[RedirectStateMachine.origin(of: url)] = Entry(credential)
        }
        guard !entries.isEmpty else { return nil }
        self.entries = entries
        self.logger = configuration.logger
    }

    /// An authenticator of one request, with `credential` for the origin of `url` alone.
    init(credential: Credential, origin url: URL, logger: Logger) {
        self.entries = [RedirectStateMachine.origin(of: url): Entry(credential)]
        self.logger = logger
    }

    /// Whether credentials are configured for the origin of `url`.
    package func hasCredentials(for url: URL) -> Bool {
        entries[RedirectStateMachine.origin(of: url)] != nil
    }

    /// Who the credentials configured for `url`'s origin speak for: the user name and
    /// password, or the current bearer token; `nil` when the origin has none. The cache keeps
    /// only a SHA-256 of it.
    func identity(for url: URL) async throws -> String? {
        switch entries[RedirectStateMachine.origin(of: url)] {
        case nil: return nil
        case .password(let user, let password, _): return "password:\(user):\(password)"
        case .bearer(let refresher): return "bearer:" + (try await refresher.token())
        }
    }

    /// Adds the credentials for `request`'s origin, unless the request sets its own
    /// `Authorization` or may not use the client's credentials; returns what it added.
    func authorize(_ request: inout CourierHTTPRequest, attempts: AuthenticationAttempts) async throws -> Sent? {
        let origin = request.rememberOrigin()
        guard request.usesClientCredentials, let entry = entries[origin], !request.headers.contains("Authorization") else { return nil }
        switch entry {
        case .bearer(let refresher):
            let token: String
            if let refreshed = attempts.refreshedToken { token = refreshed } else { token = try await refresher.token() }
            request.headers.add(name: "Authorization", value: "Bearer " + token)
            return .bearer(token)
        case .password(let user, let password, let preemptive):
            switch nextAnswer(for: origin) {
            case .digest(let challenge, let nonceCount, let clientNonce):
                let qop = challenge.qop(bodyIsHashable: request.body == nil || request.body?.bytes != nil)
                guard qop != .unanswerable else {
                    throw CourierError(
                        .authenticationFailed,
                        "The server at \(origin) accepts only Digest with qop=auth-int, which hashes the request body, but the body is a stream; send it as bytes (CourierRequestBody.data) instead.",
                        url: request.url
                    )
                }
                let answer = DigestAnswer(
                    challenge: challenge, user: user, password: password, method: request.method.rawValue,
                    uri: Authenticator.requestTarget(of: request.url), body: request.body?.bytes, qop: qop,
                    nonceCount: nonceCount,
                    clientNonce: challenge.algorithm.isSession ? clientNonce : DigestAnswer.makeClientNonce()
                )
                request.headers.add(name: "Authorization", value: answer.authorization)
                return .digest
            case .basic:
                request.headers.add(name: "Authorization", value: Authenticator.basic(user: user, password: password))
                return .basic
            case nil:
                guard preemptive else { return nil }
                request.headers.add(name: "Authorization", value: Authenticator.basic(user: user, password: password))
                return .basic
            }
        }
    }

    /// Decides whether to send `request` again after the 401 `response`, learning from its
    /// challenges. Throws ``CourierError/Kind/authenticationFailed`` when the credentials were
    /// refused too often. `request` is the hop without the credentials this stage added.
    func answers(
        _ response: CourierResponse, to request: CourierHTTPRequest, sent: Sent?, attempts: inout AuthenticationAttempts
    ) async throws -> Bool {
        let origin = RedirectStateMachine.origin(of: request.url)
        guard request.usesClientCredentials, let entry = entries[origin], !request.headers.contains("Authorization") else { return false }
        switch entry {
        case .bearer(let refresher):
            guard case .bearer(let token) = sent else { return false }
            guard attempts.refreshedToken == nil else {
                throw refused(response, to: request, origin: origin, "refused the bearer token, and then the refreshed one; check what your TokenProvider's refreshedToken(replacing:) returns")
            }
            guard let fresh = try await refresher.refreshedToken(replacing: token) else {
                throw refused(response, to: request, origin: origin, "refused the bearer token, and the token provider has no new one; sign in again to get a valid token")
            }
            logger.debug("bearer token refreshed", metadata: ["courier.origin": "\(origin)"])
            attempts.refreshedToken = fresh
            return true
        case .password:
            let challenges = Challenge.parse(response.headers.values(for: "WWW-Authenticate"))
            guard let choice = Authenticator.strongest(challenges) else { return false }
            var stale = false
            // Basic sends the same bytes again: only another scheme can help. A Digest answer
            // differs when it was computed from an earlier request's challenge.
            var retryMayHelp = sent != .basic
            if case .digest(let challenge) = choice {
                stale = challenge.stale && sent == .digest
                retryMayHelp = sent != .digest || !attempts.answeredChallenge
            }
            switch attempts.refused(credentialsSent: sent != nil, stale: stale, retryMayHelp: retryMayHelp) {
            case .giveUp:
                throw refused(response, to: request, origin: origin, "refused the user name and password; they were not sent again. Check the credentials configured in ClientConfiguration.authentication for this origin")
            case .answer:
                learn(choice, for: origin)
                logger.debug(
                    "answering an authentication challenge",
                    metadata: ["courier.origin": "\(origin)", "courier.scheme": "\(choice.name)", "courier.stale": "\(stale)"]
                )
                return true
            }
        }
    }

    // MARK: State per origin

    /// What to send up front to `origin`; takes the next Digest nonce count.
    private func nextAnswer(for origin: String) -> Learned? {
        learned.withLockedValue { state in
            guard case .digest(let challenge, let count, let clientNonce) = state[origin] else { return state[origin] }
            state[origin] = .digest(challenge: challenge, nonceCount: count + 1, clientNonce: clientNonce)
            return .digest(challenge: challenge, nonceCount: count + 1, clientNonce: clientNonce)
        }
    }

    private func learn(_ choice: Choice, for origin: String) {
        learned.withLockedValue { state in
            switch choice {
            case .basic:
                state[origin] = .basic
            case .digest(let challenge):
                // The same nonce again keeps counting where it was: the server remembers it.
                if case .digest(let previous, let count, let clientNonce) = state[origin], previous.sharesNonce(with: challenge) {
                    state[origin] = .digest(challenge: challenge, nonceCount: count, clientNonce: clientNonce)
                } else {
                    state[origin] = .digest(challenge: challenge, nonceCount: 0, clientNonce: DigestAnswer.makeClientNonce())
                }
            }
        }
    }

    // MARK: Helpers

    /// SHA-256 Digest over MD5 Digest over Basic; among equals, the first offered.
    static func strongest(_ challenges: [Challenge]) -> Choice? {
        let digests = challenges.compactMap(DigestChallenge.init)
        if let best = digests.max(by: { $0.algorithm.strength < $1.algorithm.strength }) { return .digest(best) }
        return challenges.contains { $0.scheme == "basic" } ? .basic : nil
    }

    /// `Basic` and the base64 of `user:password` in UTF-8 (RFC 7617).
    static func basic(user: String, password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// The request target the transport writes on the request line: the percent-encoded path
    /// (`/` when empty) and the query.
    static func requestTarget(of url: URL) -> String {
        var target = url.path.isEmpty ? "/" : (URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path)
        if let query = url.query { target += "?" + query }
        return target
    }

    /// The error for refused credentials; its response names the request without them.
    private func refused(_ response: CourierResponse, to request: CourierHTTPRequest, origin: String, _ what: String) -> CourierError {
        var response = response
        response.request = request
        return CourierError(.authenticationFailed, "The server at \(origin) \(what).", url: response.url, response: response)
    }
}

extension Authenticator.Choice {
    var name: String {
        switch self {
        case .basic: return "basic"
        case .digest(let challenge): return "digest " + challenge.algorithm.rawValue
        }
    }
}
