/// Where a request is in its life.
///
/// ```
/// ready ─▶ started ─▶ completed | failed | cancelled
///            │
///            └─▶ respondedFromCache | respondedStaleFromCache ─▶ completed | failed | cancelled
/// ready ─▶ failed (invalid input) | cancelled
/// ```
public enum RequestState: String, Sendable, Hashable {
    /// Created, not started.
    case ready
    /// Sent to the pipeline.
    case started
    /// A fresh cached response was delivered; a network response may follow.
    case respondedFromCache
    /// A stale cached response was delivered; a network response may follow.
    case respondedStaleFromCache
    /// Finished with a response.
    case completed
    /// Finished with an error.
    case failed
    /// Cancelled before it finished.
    case cancelled

    /// Whether the state is final.
    public var isTerminal: Bool {
        self == .completed || self == .failed || self == .cancelled
    }

    /// Whether moving from this state to `next` is allowed.
    public func canTransition(to next: RequestState) -> Bool {
        switch (self, next) {
        case (.ready, .started), (.ready, .failed), (.ready, .cancelled):
            return true
        case (.started, .respondedFromCache), (.started, .respondedStaleFromCache):
            return true
        case (.started, _), (.respondedFromCache, _), (.respondedStaleFromCache, _):
            return next.isTerminal
        default:
            return false
        }
    }
}

/// The state machine of one request: it only ever moves along legal transitions.
struct RequestLifecycle {
    private(set) var state: RequestState = .ready

    /// Moves to `next`, or throws ``CourierError/Kind/invalidState`` when the move is illegal.
    @discardableResult
    mutating func transition(to next: RequestState) throws(CourierError) -> RequestState {
        guard state.canTransition(to: next) else {
            throw CourierError(.invalidState, "A request cannot move from \(state) to \(next).")
        }
        let previous = state
        state = next
        return previous
    }
}
