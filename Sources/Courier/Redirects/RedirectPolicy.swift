/// Whether and how far redirects are followed.
///
/// Whatever the policy, Courier follows redirects safely: 301, 302 and 303 turn a POST into a
/// GET without body (303 turns every method but HEAD into GET); 307 and 308 keep the method and
/// body. When a redirect changes scheme, host or port, `Authorization`, `Cookie`,
/// `Proxy-Authorization` and the request's ``CourierRequest/sensitiveHeaders`` are removed and stay
/// removed for the rest of the chain, even if it comes back to the first origin.
public struct RedirectPolicy: Sendable, Hashable {
    /// The most redirects followed before ``CourierError/Kind/tooManyRedirects``; 0 delivers the
    /// redirect response itself.
    public var maximumRedirects: Int
    /// Whether an https page may redirect to http. Off by default: such a redirect fails with
    /// ``CourierError/Kind/insecureRedirect``.
    public var allowsInsecureRedirects: Bool

    /// Creates a policy.
    public init(maximumRedirects: Int = 10, allowsInsecureRedirects: Bool = false) {
        self.maximumRedirects = max(0, maximumRedirects)
        self.allowsInsecureRedirects = allowsInsecureRedirects
    }

    /// Follow up to 10 redirects; refuse https → http.
    public static let `default` = RedirectPolicy()
    /// Never follow: the 3xx response is delivered as it is.
    public static let none = RedirectPolicy(maximumRedirects: 0)
    /// Follow up to `maximum` redirects.
    public static func follow(maximum: Int) -> RedirectPolicy { RedirectPolicy(maximumRedirects: maximum) }

    /// Whether redirects are followed at all.
    public var follows: Bool { maximumRedirects > 0 }
}
