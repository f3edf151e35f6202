import Foundation

/// The credentials a client uses, each for one origin (scheme, host and port).
///
/// Courier adds credentials only to requests for the origin they were given for, and answers
/// only that origin's challenges. Redirects within the origin keep authenticating; once a
/// redirect leaves the origin, nothing is added or answered for the rest of the chain, even
/// on an origin that has credentials of its own, or back on the first one. A request that sets
/// its own `Authorization` header is left as it is.
///
/// ```swift
/// var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
/// configuration.authentication = Authentication(.password(user: "ada", password: "s3cret"))
/// configuration.authentication.add(.bearer(session), for: .origin(URL(string: "https://files.example.com")!))
/// ```
///
/// A user name and password refused in the scheme they were sent in (a 401 answering a request
/// that carried them) make the request fail at once with
/// ``CourierError/Kind/authenticationFailed``: they are never sent again. A challenge in another
/// scheme (Digest after Basic sent up front) is answered, and a Digest nonce that merely
/// expired (`stale=true`) is answered again without counting.
public struct Authentication: Sendable {
    /// Where a credential may be sent.
    public enum Scope: Sendable, Hashable {
        /// The origin of ``ClientConfiguration/baseURL``; nowhere when the client has none.
        case baseURL
        /// The origin (scheme, host and port) of this URL; its path is ignored.
        case origin(URL)
    }

    /// How many times the credentials of one request may be refused, each time in another
    /// scheme, before it fails; and how many challenges a request that carried none answers.
    public static let maximumFailedAttempts = 3

    var entries: [(scope: Scope, credential: Credential)] = []

    /// No credentials.
    public init() {}

    /// One credential, for the base URL's origin unless `scope` names another.
    public init(_ credential: Credential, for scope: Scope = .baseURL) {
        add(credential, for: scope)
    }

    /// Adds a credential for `scope`, replacing one given for the same origin before.
    public mutating func add(_ credential: Credential, for scope: Scope = .baseURL) {
        entries.append((scope, credential))
    }
}
