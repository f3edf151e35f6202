import Foundation

/// What makes two requests identical for coalescing: the method, the URL, every header field
/// in order, and the limits, redirect rules and connection settings that shape the exchange.
///
/// Every header counts, not only those a response's `Vary` would name: which fields matter is
/// known only once a response arrives, and a key wider than needed only shares less (two
/// requests that list the same fields in another order simply do not share). The
/// `Authorization` value (and any other credential header) is part of it, so two credential
/// identities never share a flight; credentials a client adds itself are the same for every
/// request of that client to an origin, and each client coalesces only its own requests.
///
/// A key lives only while its flight is in the air, in the memory of the request it was made
/// from; it is compared field by field, so that two different requests can never collide.
struct CoalescingKey: Hashable, Sendable {
    private let method: String
    private let url: String
    private let headers: Headers
    private let maximumBodySize: Int
    private let timeout: Duration?
    private let sensitiveHeaders: Set<String>
    private let redirectPolicy: RedirectPolicy?
    /// Connection settings of the request's own: another proxy, TLS policy or decoding is
    /// another exchange.
    private let connection: ConnectionOverrides
    /// The hash of the method and the URL, computed once: a key is hashed when its flight
    /// starts and again when it lands. The other fields take part in `==` only: requests in
    /// flight together that differ in their URL are the rule, and in nothing else but their
    /// headers or limits the exception, so hashing those would cost every request and separate
    /// almost none.
    private let hash: Int

    /// The key of `request`, or `nil` when it may not share a flight: a method other than GET
    /// or HEAD, a body, credentials of its own (``CourierRequest/credential``), or
    /// ``CourierHTTPRequest/allowsCoalescing`` turned off.
    init?(_ request: CourierHTTPRequest) {
        guard request.allowsCoalescing, request.body == nil, request.authenticator == nil,
            request.method == .get || request.method == .head
        else {
            return nil
        }
        method = request.method.rawValue
        url = request.url.absoluteString
        headers = request.headers
        maximumBodySize = request.maximumBodySize
        timeout = request.timeout
        sensitiveHeaders = request.sensitiveHeaders
        redirectPolicy = request.redirectPolicy
        connection = request.connection
        var hasher = Hasher()
        hasher.combine(method)
        hasher.combine(url)
        hash = hasher.finalize()
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
