import Foundation
import NIOCore

/// When a connection attempt of ``ChannelConnector`` must be done: the connect timeout after
/// it started, or the request's deadline if that comes first. TCP's connect and TLS's
/// handshake share it.
struct ConnectLimit: Sendable {
    /// The moment on the event loops' clock.
    let end: NIODeadline
    /// Whether the request's deadline, not the connect timeout, set ``end``.
    let isDeadline: Bool

    init(connectTimeout: Duration, deadline: ContinuousClock.Instant?, now: ContinuousClock.Instant = .now) {
        let left = deadline.map { $0 - now }
        isDeadline = left.map { $0 < connectTimeout } ?? false
        let wait = isDeadline ? max(left!, .zero) : connectTimeout
        end = NIODeadline.now() + .nanoseconds(wait.nanoseconds)
    }

    /// What is left until ``end``, never less than a millisecond (NIO takes a zero connect
    /// timeout as none).
    var remaining: TimeAmount {
        max(end - NIODeadline.now(), .milliseconds(1))
    }

    /// The error of an attempt whose handshake had not finished at ``end``.
    func error(_ timeout: HandshakeTimeout, host: String) -> CourierError {
        var error = CourierError(
            .timeout,
            isDeadline
                ? "The request's total timeout passed while the TLS handshake with \(host) was still going on; raise Request.timeout, or check that the server speaks TLS on this port."
                : "The TLS handshake with \(host) did not finish within the connect timeout; check that the server speaks TLS on this port, or raise the connect timeout.",
            underlyingError: timeout
        )
        error.requestMayHaveBeenSent = false
        return error
    }
}

/// The TLS handshake of a connection had not finished by its ``ConnectLimit``.
struct HandshakeTimeout: Error {}
