import Courier
import Foundation
import Logging

/// Counts planning rounds, so that a caller can wait for a round that started after its change.
struct Rounds {
    var requested = 0
    var done = 0
    var running = false
    var waiters: [(round: Int, continuation: CheckedContinuation<Void, Never>)] = []
}

extension DurableQueue {
    /// Makes records left in flight pending again and starts sending what is due.
    func startDelivery() async throws(CourierError) {
        guard !delivering else { return }
        try checkOpen()
        delivering = true
        try await store.resumeInFlight()
        // This process may have the credentials an earlier one lacked.
        try await store.makeDueWaitingForCredentials(now: configuration.now())
        pathWatcher = NetworkPathWatcher.start { [weak self] in await self?.networkIsBack() }
        await planRound()
    }

    /// Plans and starts what is due; returns once a round that began after the call has ended.
    func planRound() async {
        guard !closed else { return }
        rounds.requested += 1
        let ticket = rounds.requested
        guard !rounds.running else {
            await withCheckedContinuation { rounds.waiters.append((ticket, $0)) }
            return
        }
        rounds.running = true
        // Each pass serves every request made before it began; at most a few passes run.
        for _ in 0..<64 where rounds.done < rounds.requested && !closed {
            let target = rounds.requested
            await round()
            rounds.done = target
            let ready = rounds.waiters.filter { $0.round <= target }
            rounds.waiters.removeAll { $0.round <= target }
            for waiter in ready { waiter.continuation.resume() }
        }
        rounds.running = false
        for waiter in rounds.waiters { waiter.continuation.resume() }
        rounds.waiters.removeAll()
    }

    /// One round: expire, probe and send what the planner says, and set the timer.
    private func round() async {
        let now = configuration.now()
        let records: [QueuePlanner.Slot]
        do {
            records = try await store.activeSlots()
            QueueMetrics.recordDepth(records.count)
        } catch {
            client.configuration.logger.error("courier queue: \(error)")
            schedule(at: now.addingTimeInterval(1))
            return
        }
        let plan = QueuePlanner.plan(
            records, now: now, sending: Set(deliveries.keys), unreachable: unreachable.mapValues(\.probeAt), probing: Set(probes.keys)
        )
        for id in plan.expire {
            if let record = try? await store.update(id: id, state: .expired, outcome: nil) {
                heldCredentials[id] = nil
                publish(.expired(record))
            }
        }
        for origin in plan.probe {
            guard let url = URL(string: origin) else { continue }
            let probe = ReachabilityProbe(healthURL: configuration.healthURL, timeout: configuration.probeTimeout, client: client)
            probes[origin] = Task { [weak self] in
                let reachable = await probe.check(url)
                await self?.probeEnded(origin: origin, reachable: reachable)
            }
        }
        for id in plan.send where deliveries[id] == nil {
            deliveries[id] = Task { [weak self] in await self?.deliver(id: id) }
        }
        schedule(at: plan.wakeAt)
    }

    /// Plans again at `date`, replacing the previous timer.
    private func schedule(at date: Date?) {
        timer?.cancel()
        guard let date, !closed else { return }
        let delay = QueuePlanner.delay(until: date, now: configuration.now())
        let clock = configuration.clock
        timer = Task { [weak self] in
            do { try await clock.sleep(for: delay) } catch { return }
            await self?.planRound()
        }
    }

    private func probeEnded(origin: String, reachable: Bool) async {
        probes[origin] = nil
        guard !closed else { return }
        if reachable {
            unreachable[origin] = nil
            try? await store.makeDue(origin: origin, now: configuration.now())
        } else {
            let failures = (unreachable[origin]?.failures ?? 0) + 1
            let wait = RetryStateMachine(policy: configuration.retryPolicy, attempts: failures).backoff(jitter: Double.random(in: 0.5..<1))
            unreachable[origin] = (configuration.now().addingTimeInterval(wait.timeInterval), failures)
        }
        await planRound()
    }

    /// Finds a pending record's credentials, then claims it, sends it once and records what
    /// came of it; a record that lacks credentials is left waiting, unsent and uncounted.
    private func deliver(id: String) async {
        defer { deliveries[id] = nil }
        do {
            guard let pending = try await store.record(id: id), pending.state == .pending else { return }
            let (credentials, sourceFailure) = await resolveCredentials(for: pending)
            guard !closed else { return }
            guard credentials.missing.isEmpty else {
                try await waitForCredentials(pending, missing: credentials.missing, sourceFailure: sourceFailure)
                deliveries[id] = nil
                await planRound()
                return
            }
            waitingForCredentials.remove(id)
            guard let record = try await store.claim(id: id) else { return }
            publish(.attempt(record))
            var response: CourierResponse?
            var failure: CourierError?
            do {
                let request = try record.request.httpRequest(
                    maximumBodySize: client.configuration.limits.maximumBodySize, defaultTimeout: client.configuration.timeouts.total,
                    credentials: credentials, sensitiveHeaders: Set(client.configuration.sensitiveHeaders.map { $0.lowercased() })
                )
                response = try await client.sendOnce(request)
            } catch let error as CourierError {
                failure = error
            } catch {
                failure = CourierError(.transport, "The attempt failed: \(error).", url: record.request.url, underlyingError: error)
            }
            try await settle(record, response: response, failure: failure)
        } catch {
            client.configuration.logger.error("courier queue: \(error)")
        }
        deliveries[id] = nil
        await planRound()
    }

    /// Records the attempt's result: final, or pending again with its next attempt time.
    private func settle(_ record: QueueRecord, response: CourierResponse?, failure: CourierError?) async throws(CourierError) {
        let now = configuration.now()
        if response == nil && (closed || failure?.kind == .cancelled) {
            // Stopped, not failed: the next queue opened on the database sends it again.
            _ = try await store.update(id: record.id, state: .pending, outcome: nil, nextAttemptAt: now)
            return
        }
        let decision = QueueDecision.decide(
            status: response?.status, retryAfter: response?.headers["Retry-After"], error: failure,
            attempts: record.attempts, policy: configuration.retryPolicy, jitter: Double.random(in: 0..<1), now: now
        )
        let outcome = response.map { QueueOutcome($0, at: now) } ?? failure.map { QueueOutcome($0, at: now) }
        switch decision {
        case .delivered:
            heldCredentials[record.id] = nil
            guard let updated = try await store.update(id: record.id, state: .delivered, outcome: outcome), let response else { return }
            publish(.delivered(updated, response))
        case .failed:
            heldCredentials[record.id] = nil
            guard let updated = try await store.update(id: record.id, state: .failed, outcome: outcome) else { return }
            publish(.failed(updated))
        case .retry(let wait), .unreachable(let wait):
            let next = now.addingTimeInterval(wait.timeInterval)
            guard let updated = try await store.update(id: record.id, state: .pending, outcome: outcome, nextAttemptAt: next) else { return }
            if case .unreachable = decision {
                let failures = (unreachable[record.request.origin]?.failures ?? 0) + 1
                unreachable[record.request.origin] = (next, failures)
            }
            publish(.waiting(updated))
        }
    }
}
