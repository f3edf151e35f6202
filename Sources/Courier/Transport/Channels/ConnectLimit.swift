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

    /// Whether ``end`` has passed.
    var hasPassed: Bool { NIODeadline.now() >= end }

    /// The error of an attempt that had not connected, or not finished its handshake, at
    /// ``end``; `cause` is what ended it.
    func error(_ cause: any Error, host: String) -> CourierError {
        var error = CourierError(
            .timeout,
            isDeadline
                ? "The request's total timeout passed while the connection to \(host) was still being opened (TCP and TLS handshake); raise CourierRequest.timeout, or check that the server is up and speaks TLS on this port."
                : "The connection to \(host) was not open within the connect timeout (TCP and TLS handshake); check that the server is up and speaks TLS on this port, or raise the connect timeout.",
            underlyingError: cause
        )
        error.requestMayHaveBeenSent = false
        return error
    }
}

/// The TLS handshake of a connection had not finished by its ``ConnectLimit``.
struct HandshakeTimeout: Error {}
