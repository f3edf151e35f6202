/// What a client proves its identity with, for one origin.
///
/// ```swift
/// let password = Credential.password(user: "ada", password: "s3cret")
/// let token = Credential.bearer(session)        // a TokenProvider, refreshed on 401
/// ```
public struct Credential: Sendable {
    enum Secret: Sendable {
        case password(user: String, password: String, preemptive: Bool)
        case bearer(any TokenProvider)
    }

    let secret: Secret

    /// A user name and password that answer Basic and Digest challenges (RFC 7617,
    /// RFC 7616). With `preemptive`, the first request already carries Basic credentials,
    /// which saves a round trip to servers known to use Basic; otherwise nothing is sent until
    /// the server asks, and then in the strongest scheme it offers.
    public static func password(user: String, password: String, preemptive: Bool = false) -> Credential {
        Credential(secret: .password(user: user, password: password, preemptive: preemptive))
    }

    /// Bearer tokens from `provider`, sent with every request and refreshed once on 401.
    public static func bearer(_ provider: any TokenProvider) -> Credential {
        Credential(secret: .bearer(provider))
    }

    /// A bearer token that cannot be refreshed: a 401 fails the request with
    /// ``CourierError/Kind/authenticationFailed``.
    public static func bearer(_ token: String) -> Credential {
        bearer(FixedToken(value: token))
    }
}
