import NIOConcurrencyHelpers

/// Wakes the requests of this process that wait for a share of an origin when a lease of that
/// origin is released, by any process (the `courier_limits` channel names the origin).
final class ReleaseSignals: Sendable {
    private struct Waiter {
        var origin: String
        var continuation: CheckedContinuation<Void, Never>?
        var isDone = false
    }

    private let waiters = NIOLockedValueBox<(next: Int, all: [Int: Waiter])>((0, [:]))

    /// Wakes every waiter for `origin`; every waiter, for `nil`.
    func signal(_ origin: String?) {
        let woken: [CheckedContinuation<Void, Never>] = waiters.withLockedValue { state in
            var woken: [CheckedContinuation<Void, Never>] = []
            for (id, waiter) in state.all where origin == nil || waiter.origin == origin {
                state.all[id]?.isDone = true
                if let continuation = waiter.continuation {
                    woken.append(continuation)
                    state.all[id] = nil
                }
            }
            return woken
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns when a lease of `origin` is released, or after `longest`, or when the task is
    /// cancelled, whichever comes first.
    func wait(for origin: String, atMost longest: Duration) async {
        let id = waiters.withLockedValue { state in
            state.next += 1
            state.all[state.next] = Waiter(origin: origin)
            return state.next
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: longest) }
            group.addTask { await self.released(id) }
            await group.next()
            group.cancelAll()
            // The other child ends now: the sleep on cancellation, the wait by this signal.
            self.end(id)
        }
    }

    private func released(_ id: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = waiters.withLockedValue { state -> Bool in
                    guard let waiter = state.all[id], !waiter.isDone else {
                        state.all[id] = nil
                        return true
                    }
                    state.all[id]?.continuation = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            self.end(id)
        }
    }

    /// Ends the wait `id`: resumes it if it is suspended, or marks it so that it does not
    /// suspend.
    private func end(_ id: Int) {
        let continuation = waiters.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.all[id] else { return nil }
            if let continuation = waiter.continuation {
                state.all[id] = nil
                return continuation
            }
            state.all[id]?.isDone = true
            return nil
        }
        continuation?.resume()
    }
}
