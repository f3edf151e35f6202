import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import WSCore

/// Where swift-websocket's handler, which runs in a task of its own, hands the connection's
/// inbound and outbound sides to the task that runs the caller's closure, and learns when
/// (and how) that closure ended.
final class Meeting: Sendable {
    private struct State {
        var sides: (WebSocketInboundStream, WebSocketOutboundWriter)?
        var failure: (any Error)?
        var opener: CheckedContinuation<(WebSocketInboundStream, WebSocketOutboundWriter), any Error>?
        /// How the closure ended, once it did: `nil` inside for a return.
        var ending: (any Error)??
        var ender: CheckedContinuation<Void, any Error>?
    }

    private let state = NIOLockedValueBox(State())

    /// The handler is ready: these are the connection's sides.
    func open(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter) {
        let opener = state.withLockedValue { state in
            state.sides = (inbound, outbound)
            defer { state.opener = nil }
            return state.opener
        }
        opener?.resume(returning: (inbound, outbound))
    }

    /// The handler ended, or failed, before the closure could have the connection (or after).
    func fail(_ error: any Error) {
        let opener = state.withLockedValue { state in
            if state.sides == nil { state.failure = state.failure ?? error }
            defer { state.opener = nil }
            return state.opener
        }
        opener?.resume(throwing: error)
    }

    /// The connection's sides, once the handler is ready.
    func opened() async throws -> (WebSocketInboundStream, WebSocketOutboundWriter) {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLockedValue { state -> Result<(WebSocketInboundStream, WebSocketOutboundWriter), any Error>? in
                if let sides = state.sides { return .success(sides) }
                if let failure = state.failure { return .failure(failure) }
                state.opener = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The closure ended: returned (`nil`), or threw `error`.
    func end(_ error: (any Error)?) {
        let ender = state.withLockedValue { state in
            state.ending = .some(error)
            defer { state.ender = nil }
            return state.ender
        }
        if let error { ender?.resume(throwing: error) } else { ender?.resume() }
    }

    /// Waits for the closure to end; throws what it threw.
    func bodyEnded() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let ending = state.withLockedValue { state -> (any Error)?? in
                if let ending = state.ending { return .some(ending) }
                state.ender = continuation
                return nil
            }
            switch ending {
            case .some(.some(let error)): continuation.resume(throwing: error)
            case .some(.none): continuation.resume()
            case .none: break
            }
        }
    }
}

/// The connection once its pipeline speaks WebSocket, from the loop that set it up to the
/// task that runs it.
final class OpenedChannel: Sendable {
    private let channel = NIOLockedValueBox<NIOAsyncChannel<WebSocketFrame, WebSocketFrame>?>(nil)

    func set(_ opened: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>) {
        channel.withLockedValue { $0 = opened }
    }

    func take() -> NIOAsyncChannel<WebSocketFrame, WebSocketFrame>? {
        channel.withLockedValue { value in
            defer { value = nil }
            return value
        }
    }
}
