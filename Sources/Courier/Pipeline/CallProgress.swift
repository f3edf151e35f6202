import Foundation
import NIOConcurrencyHelpers

/// How far one call has come: its lifecycle, the request it built, the response it received
/// and its retry decisions, told to the client's observers as the call moves.
///
/// ``CourierClient/perform(id:state:validators:retryPolicy:terminal:mayRetry:begin:prepare:build:finish:)``
/// keeps one for the whole call, so that the steps up to the response and those after its
/// result share one record without being generic over that result.
struct CallProgress {
    private var lifecycle = RequestLifecycle()
    /// Where the caller reads the call's state, if it asked to.
    private let state: NIOLockedValueBox<RequestState>?
    private let observers: [any RequestObserver]
    /// When the call began, kept in a form of known size (see ``ClockReading``).
    let started = ClockReading.now
    let startDate = Date()
    /// The request once built; `nil` before.
    var current: CourierHTTPRequest?
    /// The response received, once there is one.
    var response: CourierResponse?
    /// The call's retry decisions, when its policy allows a retry.
    var retries: CallRetries?
    /// Whether any attempt began.
    var attempted = false

    /// When the call began.
    var start: ContinuousClock.Instant { started.instant }

    init(state: NIOLockedValueBox<RequestState>?, observers: [any RequestObserver]) {
        self.state = state
        self.observers = observers
    }

    /// Moves the lifecycle to `next`, tells the caller's state box and the observers; an
    /// illegal move is ignored.
    mutating func move(to next: RequestState, error: (any Error)? = nil) {
        guard let previous = try? lifecycle.transition(to: next) else { return }
        state?.withLockedValue { $0 = next }
        guard !observers.isEmpty, let current else { return }
        let event = RequestEvent(request: current, state: next, previousState: previous, response: response, error: error, start: start)
        for observer in observers { observer.requestDidChangeState(event) }
    }

    /// Tells each observer, through `call`, where the call stands.
    func notify(_ call: (any RequestObserver, RequestEvent) -> Void, error: (any Error)? = nil) {
        guard !observers.isEmpty, let current else { return }
        let event = RequestEvent(
            request: current, state: lifecycle.state, previousState: lifecycle.state, response: response, error: error, start: start)
        for observer in observers { call(observer, event) }
    }

    /// Ends a call whose result was made.
    mutating func complete() {
        notify { $0.requestWillStop($1) }
        move(to: .completed)
        notify { $0.requestDidStop($1) }
    }

    /// Ends a call that failed with `error`; returns the error to throw: classified, with the
    /// URL and the number of attempts.
    mutating func fail(_ error: any Error) -> any Error {
        var final = CourierClient.classify(error, url: current?.url)
        if var failure = final as? CourierError, failure.attempts == 0, attempted {
            failure.attempts = retries?.attempts ?? 1
            final = failure
        }
        notify({ $0.requestWillStop($1) }, error: final)
        let isCancellation = (final as? CourierError)?.kind == .cancelled
        move(to: isCancellation ? .cancelled : .failed, error: final)
        notify({ $0.requestDidStop($1) }, error: final)
        return final
    }
}
