import NIOConcurrencyHelpers

/// The start of an exchange handed to its waiting scheduler ``Admission`` (see
/// ``ChannelTransport``): the task that sent the request sleeps until its response, and the
/// release that frees its slot starts the exchange, on an idle connection, where it runs.
///
/// ```
/// waiting ──(the slot, an idle connection)──▶ begun(exchange)
///    │  └───(the slot, no idle connection)──▶ leftToCaller
///    └──(the task cancelled)──▶ cancelled
/// ```
///
/// A begun exchange of a cancelled task is cancelled (its connection closes, unless it has
/// ended); an exchange cannot begin once the task was cancelled. A value: copies share one
/// state.
struct HandedStart: Sendable {
    private enum State {
        case waiting
        case begun(Exchange)
        case leftToCaller
        case cancelled
    }

    /// Why the response's handoff failed when the slot came without an idle connection: the
    /// task leases one itself.
    struct LeftToCaller: Error {}

    private let state = NIOLockedValueBox(State.waiting)

    /// Keeps `exchange` as the one begun; `false` when the task was cancelled first, and the
    /// exchange must not begin.
    func begin(_ exchange: Exchange) -> Bool {
        state.withLockedValue { state in
            guard case .waiting = state else { return false }
            state = .begun(exchange)
            return true
        }
    }

    /// The slot came, but no idle connection: the task is to lease one.
    func leaveToCaller() {
        state.withLockedValue { state in
            if case .waiting = state { state = .leftToCaller }
        }
    }

    /// The task was cancelled: a begun exchange is cancelled, and none begins any more.
    func cancel() {
        let begun = state.withLockedValue { state -> Exchange? in
            switch state {
            case .begun(let exchange): return exchange
            case .waiting:
                state = .cancelled
                return nil
            case .leftToCaller, .cancelled: return nil
            }
        }
        begun?.cancel()
    }

    /// The exchange begun, if any.
    var exchange: Exchange? {
        state.withLockedValue { state in
            if case .begun(let exchange) = state { return exchange }
            return nil
        }
    }

    /// Whether the slot came without an idle connection.
    var isLeftToCaller: Bool {
        state.withLockedValue { state in
            if case .leftToCaller = state { return true }
            return false
        }
    }
}
