import Crypto
import Foundation

/// What makes two requests identical for coalescing: the method, the URL, every header field
/// (names lower-cased, values trimmed, sorted by name, values of one name in order) and the
/// limits that shape the exchange.
///
/// Every header counts, not only those a response's `Vary` would name: which fields matter is
/// known only once a response arrives, and a key wider than needed only shares less. The
/// `Authorization` value (and any other credential header) is part of it, so two credential
/// identities never share a flight; credentials a client adds itself are the same for every
/// request of that client to an origin, and each client coalesces only its own requests.
///
/// The key is a SHA-256 of all this, so that no secret is kept in it.
struct CoalescingKey: Hashable, Sendable {
    private let digest: SHA256.Digest

    /// The key of `request`, or `nil` when it may not share a flight: a method other than GET
    /// or HEAD, a body, or ``HTTPRequest/allowsCoalescing`` turned off.
    init?(_ request: HTTPRequest) {
        guard request.allowsCoalescing, request.body == nil, request.method == .get || request.method == .head else {
            return nil
        }
        var hasher = SHA256()
        func feed(_ text: String) {
            hasher.update(data: Data(text.utf8))
            hasher.update(data: [0])
        }
        feed(request.method.rawValue)
        feed(request.url.absoluteString)
        feed(String(request.maximumBodySize))
        feed(request.timeout.map { String(describing: $0) } ?? "-")
        feed(request.sensitiveHeaders.sorted().joined(separator: ","))
        let fields = request.headers.enumerated().map { index, field in
            (name: field.name.lowercased(), value: field.value.trimmingCharacters(in: .whitespaces), index: index)
        }
        for field in fields.sorted(by: { ($0.name, $0.index) < ($1.name, $1.index) }) {
            feed(field.name)
            feed(field.value)
        }
        digest = hasher.finalize()
    }
}
