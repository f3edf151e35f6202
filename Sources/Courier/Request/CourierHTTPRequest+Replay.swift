import Foundation

extension CourierHTTPRequest {
    /// Whether the request may be sent again after a connection closed under it: an
    /// idempotent method and a body that can be produced again.
    var isReplayable: Bool {
        ["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"].contains(method.rawValue) && body?.isStreamed != true
    }

    /// ``isReplayable``, or any method with an `Idempotency-Key` and a body that can be
    /// produced again: what the client may send once more when a connection closed under it
    /// before any of the response.
    var mayBeReplayed: Bool {
        isReplayable || (headers.contains("Idempotency-Key") && body?.isStreamed != true)
    }
}
