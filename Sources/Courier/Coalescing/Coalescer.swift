import NIOConcurrencyHelpers

/// Lets concurrent identical requests share one exchange (MKNetworkKit's coalescing).
///
/// The first request for a key starts a flight and runs the exchange itself, in its own task
/// and on its own executor, so that a request that shares nothing pays for one key and two
/// short locked sections, and no hand-off to another task or thread. Requests with the same
/// key that arrive while the flight is in the air join it: they wait for its result instead of
/// sending their own, and may each be cancelled alone. A request arriving after the flight
/// landed starts a new one.
///
/// The starter's cancellation ends the exchange it runs. When others are still waiting then,
/// the flight is handed over to a task of its own, which sends the request again for them: the
/// server sees a second request in that case only, and every joiner still gets a response.
/// A handed-over flight is cancelled when every joiner has left.
///
/// The flights are kept in a dictionary behind a lock, not in an actor, so that joining and
/// landing never wait for another executor.
final class Coalescer: Sendable {
    /// What a flight sends: the request, collected by the client's ``CourierClient/collect(_:)``
    /// on its caller's executor. Passed as values, not as a closure, so that a request that
    /// shares nothing allocates nothing for it.
    struct Exchange: Sendable {
        let request: CourierHTTPRequest
        let client: CourierClient

        nonisolated(nonsending) func run() async throws -> CourierResponse {
            try await client.collect(request)
        }
    }
    private typealias Waiter = CheckedContinuation<CourierResponse, any Error>

    private struct Flight {
        var id: UInt64
        /// Whether the request that started the flight is running the exchange in its own task.
        var runsInline = true
        /// The requests that joined the flight, by waiter number.
        var waiters: [UInt64: Waiter] = [:]
        /// The task that flies it after a cancelled starter handed it over.
        var handover: Task<Void, Never>?
    }

    private struct State {
        var flights: [CoalescingKey: Flight] = [:]
        var lastID: UInt64 = 0

        mutating func nextID() -> UInt64 {
            lastID &+= 1
            return lastID
        }
    }

    /// What a request is to the flight for its key.
    private enum Role {
        case starter(flight: UInt64)
        case joiner(waiter: UInt64)
    }

    /// What became of a joiner when it came to wait.
    private enum Joining {
        case waiting, cancelled, landed
    }

    /// Thrown to a joiner whose flight landed between its finding the flight and its waiting:
    /// it asks again, and starts or joins the next flight.
    private struct Landed: Error {}

    private let state = NIOLockedValueBox(State())

    /// The number of requests waiting for a flight: the starters still running an exchange
    /// and every joiner.
    var waiting: Int {
        state.withLockedValue { $0.flights.values.reduce(0) { $0 + $1.waiters.count + ($1.runsInline ? 1 : 0) } }
    }

    /// The response of the flight for `key`: one already in the air, or a new one that runs
    /// `exchange` in the calling task.
    nonisolated(nonsending) func response(for key: CoalescingKey, exchange: Exchange) async throws -> CourierResponse {
        while true {
            let role = state.withLockedValue { state -> Role in
                if state.flights[key] != nil { return .joiner(waiter: state.nextID()) }
                let id = state.nextID()
                state.flights[key] = Flight(id: id)
                return .starter(flight: id)
            }
            switch role {
            case .starter(let id):
                let result: Result<CourierResponse, any Error>
                do {
                    result = .success(try await exchange.run())
                } catch {
                    result = .failure(error)
                }
                land(key, flight: id, result, exchange: exchange)
                return try result.get()
            case .joiner(let waiter):
                do {
                    return try await wait(for: key, as: waiter)
                } catch is Landed {
                    continue
                }
            }
        }
    }

    /// Waits for the flight in the air for `key`.
    private nonisolated(nonsending) func wait(for key: CoalescingKey, as waiter: UInt64) async throws -> CourierResponse {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                let joining = state.withLockedValue { state -> Joining in
                    // Checked under the lock: a cancellation handler that ran before this found
                    // no waiter to remove, and one that runs after finds this one.
                    guard !Task.isCancelled else { return .cancelled }
                    guard state.flights[key] != nil else { return .landed }
                    state.flights[key]!.waiters[waiter] = continuation
                    return .waiting
                }
                switch joining {
                case .waiting: break
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .landed: continuation.resume(throwing: Landed())
                }
            }
        } onCancel: {
            self.leave(key, waiter: waiter)
        }
    }

    /// Removes a cancelled joiner; cancels a handed-over flight when it was the last. A flight
    /// its starter still runs goes on: the starter wants it.
    private func leave(_ key: CoalescingKey, waiter: UInt64) {
        let (continuation, abandoned) = state.withLockedValue { state -> (Waiter?, Task<Void, Never>?) in
            guard let continuation = state.flights[key]?.waiters.removeValue(forKey: waiter) else { return (nil, nil) }
            guard state.flights[key]!.waiters.isEmpty, !state.flights[key]!.runsInline else { return (continuation, nil) }
            return (continuation, state.flights.removeValue(forKey: key)?.handover)
        }
        continuation?.resume(throwing: CancellationError())
        abandoned?.cancel()
    }

    /// Ends the starter's part in a flight: hands `result` to the joiners, or, when the
    /// starter was cancelled and failed while others wait, hands the flight over.
    private func land(_ key: CoalescingKey, flight id: UInt64, _ result: Result<CourierResponse, any Error>, exchange: Exchange) {
        let handsOver: Bool
        if case .failure = result { handsOver = Task.isCancelled } else { handsOver = false }
        let joiners = state.withLockedValue { state -> [UInt64: Waiter]? in
            guard let flight = state.flights[key], flight.id == id else { return [:] }
            if handsOver, !flight.waiters.isEmpty {
                state.flights[key]!.runsInline = false
                return nil
            }
            state.flights[key] = nil
            return flight.waiters
        }
        guard let joiners else { return handOver(key, flight: id, exchange: exchange) }
        Self.deliver(result, to: joiners)
    }

    /// Flies the flight for `key` in a task of its own, for the joiners its cancelled starter
    /// left waiting.
    private func handOver(_ key: CoalescingKey, flight id: UInt64, exchange: Exchange) {
        let task = Task {
            let result: Result<CourierResponse, any Error>
            do {
                result = .success(try await exchange.run())
            } catch {
                result = .failure(error)
            }
            let joiners = self.state.withLockedValue { state -> [UInt64: Waiter] in
                guard let flight = state.flights[key], flight.id == id else { return [:] }
                state.flights[key] = nil
                return flight.waiters
            }
            Self.deliver(result, to: joiners)
        }
        let abandoned = state.withLockedValue { state -> Bool in
            guard state.flights[key]?.id == id else { return true }
            state.flights[key]!.handover = task
            return false
        }
        // Every joiner left before the task was recorded: nobody wants the flight.
        if abandoned { task.cancel() }
    }

    /// Resumes `joiners` with `result`, the response marked ``CourierResponse/isCoalesced``.
    /// The marked copy (a new storage for the response's fields) is made only when someone
    /// joined: most flights have no joiner.
    private static func deliver(_ result: Result<CourierResponse, any Error>, to joiners: [UInt64: Waiter]) {
        guard !joiners.isEmpty else { return }
        let shared = result.map { response in
            var response = response
            response.isCoalesced = true
            return response
        }
        for waiter in joiners.values { waiter.resume(with: shared) }
    }
}
