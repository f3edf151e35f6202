import NIOConcurrencyHelpers

/// Lets concurrent identical requests share one exchange (MKNetworkKit's coalescing).
///
/// The first request for a key starts a flight: the exchange, in a task of its own. Requests
/// with the same key that arrive while it is in the air wait for its result instead of
/// sending their own. Each waiter may be cancelled alone; the flight is cancelled only when
/// every waiter has been. Its response, or its error, reaches every waiter still there. A
/// request arriving after the flight landed starts a new one.
///
/// The flights are kept in a dictionary behind a lock, not in an actor, so that a request
/// that shares nothing pays for one key, two short locked sections and a task.
final class Coalescer: Sendable {
    private typealias Waiter = CheckedContinuation<CourierResponse, any Error>

    private struct Flight {
        var id: UInt64
        /// The waiter that started the flight; the others share its response.
        var starter: UInt64
        var waiters: [UInt64: Waiter]
        var task: Task<Void, Never>?
    }

    private struct State {
        var flights: [CoalescingKey: Flight] = [:]
        var lastID: UInt64 = 0

        mutating func nextID() -> UInt64 {
            lastID &+= 1
            return lastID
        }
    }

    private let state = NIOLockedValueBox(State())

    /// The number of requests waiting for a flight, the starters included.
    var waiting: Int {
        state.withLockedValue { $0.flights.values.reduce(0) { $0 + $1.waiters.count } }
    }

    /// The response of the flight for `key`: one already in the air, or a new one that runs
    /// `exchange`.
    func response(for key: CoalescingKey, exchange: @escaping @Sendable () async throws -> CourierResponse) async throws -> CourierResponse {
        let waiter = state.withLockedValue { $0.nextID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                self.join(key, waiter: waiter, continuation: continuation, exchange: exchange)
            }
        } onCancel: {
            self.leave(key, waiter: waiter)
        }
    }

    private func join(
        _ key: CoalescingKey, waiter: UInt64, continuation: Waiter, exchange: @escaping @Sendable () async throws -> CourierResponse
    ) {
        enum Joined {
            case refused, waiting
            case starting(UInt64)
        }
        let joined = state.withLockedValue { state -> Joined in
            // Checked under the lock: a cancellation handler that ran before this found no
            // waiter to remove, and one that runs after finds this one.
            guard !Task.isCancelled else { return .refused }
            if state.flights[key] != nil {
                state.flights[key]!.waiters[waiter] = continuation
                return .waiting
            }
            let id = state.nextID()
            state.flights[key] = Flight(id: id, starter: waiter, waiters: [waiter: continuation], task: nil)
            return .starting(id)
        }
        switch joined {
        case .refused:
            continuation.resume(throwing: CancellationError())
        case .waiting:
            break
        case .starting(let id):
            // The flight is a task of its own, so that it outlives a starter that is cancelled
            // while others wait; it starts on this thread and runs here until it first
            // suspends, which spares a request that shares nothing a hand-off to another thread
            // (where `Task.immediate` exists: always on Linux, from the 2025 Apple releases on).
            let fly: @Sendable () async -> Void = {
                let result: Result<CourierResponse, any Error>
                do {
                    result = .success(try await exchange())
                } catch {
                    result = .failure(error)
                }
                self.land(key, flight: id, result)
            }
            let task: Task<Void, Never>
            if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, *) {
                task = Task.immediate { await fly() }
            } else {
                task = Task { await fly() }
            }
            let abandoned = state.withLockedValue { state -> Bool in
                guard state.flights[key]?.id == id else { return true }
                state.flights[key]!.task = task
                return false
            }
            // Every waiter left before the task was recorded: nobody wants the flight.
            if abandoned { task.cancel() }
        }
    }

    /// Removes a cancelled waiter; cancels the flight when it was the last.
    private func leave(_ key: CoalescingKey, waiter: UInt64) {
        let (continuation, abandoned) = state.withLockedValue { state -> (Waiter?, Task<Void, Never>?) in
            guard let continuation = state.flights[key]?.waiters.removeValue(forKey: waiter) else { return (nil, nil) }
            guard state.flights[key]!.waiters.isEmpty else { return (continuation, nil) }
            return (continuation, state.flights.removeValue(forKey: key)?.task)
        }
        continuation?.resume(throwing: CancellationError())
        abandoned?.cancel()
    }

    /// Hands the flight's result to every waiter still there: as it is to the one that started
    /// the flight, marked ``CourierResponse/isCoalesced`` to the others.
    private func land(_ key: CoalescingKey, flight: UInt64, _ result: Result<CourierResponse, any Error>) {
        let landed = state.withLockedValue { state -> Flight? in
            guard let landed = state.flights[key], landed.id == flight else { return nil }
            state.flights[key] = nil
            return landed
        }
        guard let landed else { return }
        // Most flights have one waiter, the starter: the marked copy (a new storage for the
        // response's fields) is made only when another request joined.
        var shared: Result<CourierResponse, any Error>?
        for (id, waiter) in landed.waiters {
            if id == landed.starter {
                waiter.resume(with: result)
                continue
            }
            if shared == nil {
                shared = result.map { response in
                    var response = response
                    response.isCoalesced = true
                    return response
                }
            }
            waiter.resume(with: shared!)
        }
    }
}
