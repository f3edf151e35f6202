import Courier
import Foundation
import Logging

/// Counts rounds, so that a caller can wait for a round that started after its change.
///
/// A round either plans over every record waiting or in flight (expiry, probes, when to look
/// again), or only claims what is due into the free delivery slots: one statement, whatever
/// the queue's size. Claiming is what a finished delivery or another worker's change needs;
/// planning is left to the start, the timer, and at most once a ``QueuePlanner/watchInterval``
/// while the worker delivers or other workers change the records.
struct Rounds {
    var requested = 0
    var done = 0
    var running = false
    /// Whether a request since the last round asked for a whole plan.
    var planRequested = false
    /// Holders the last plan found gone, whose records claims take over before their leases end.
    var goneHolders: [String] = []
    /// Whether a whole plan is being made: its timer replaces the one set before it began.
    var planning = false
    /// The earliest wake-up asked for while a plan was being made (a retry settled meanwhile),
    /// which that plan's timer must not pass over, since the records it read came before it.
    var wakeDuringPlan: Date?
    var waiters: [(round: Int, continuation: CheckedContinuation<Void, Never>)] = []
}

extension DurableQueue {
    /// Starts sending what is due, records whose worker died included, and listens for other
    /// workers' changes.
    func startDelivery() async throws(CourierError) {
        guard !delivering else { return }
        try checkOpen()
        delivering = true
        // This process may have the credentials an earlier one lacked.
        try await store.makeDueWaitingForCredentials(now: configuration.now())
        pathWatcher = NetworkPathWatcher.start { [weak self] in Task { await self?.networkIsBack() } }
        let changes = store.changes()
        changeWatch = Task { [weak self] in
            for await _ in changes {
                guard let self else { return }
                await self.otherWorkerChanged()
            }
        }
        leaseRenewal = Task { [weak self, interval = configuration.leaseDuration / 3, clock = configuration.clock] in
            while true {
                do { try await clock.sleep(for: interval) } catch { return }
                await self?.renewLeases()
            }
        }
        await planRound()
    }

    /// Moves this worker's leases on the records it is sending forward by a whole lease.
    private func renewLeases() async {
        guard !closed, !deliveries.isEmpty else { return }
        let until = configuration.now().addingTimeInterval(configuration.leaseDuration.timeInterval)
        do {
            try await store.renew(Array(deliveries.keys), holder: worker, expiresAt: until)
        } catch {
            client.configuration.logger.error("courier queue: the leases could not be renewed: \(error)")
        }
    }

    /// Another worker enqueued, settled or released records: what is due is claimed now, and
    /// a whole plan (for the records' expiry and retry times) follows within a
    /// ``QueuePlanner/watchInterval``.
    private func otherWorkerChanged() async {
        guard !closed else { return }
        wake(noLaterThan: configuration.now().addingTimeInterval(QueuePlanner.watchInterval))
        await claimRound()
    }

    /// Plans over every record and starts what is due; returns once a round that began after
    /// the call has ended.
    func planRound() async {
        await requestRound(planning: true)
    }

    /// Claims and starts what is due, up to the free delivery slots; returns once a round
    /// that began after the call has ended.
    func claimRound() async {
        await requestRound(planning: false)
    }

    private func requestRound(planning: Bool) async {
        guard !closed, !paused else { return }
        rounds.requested += 1
        if planning { rounds.planRequested = true }
        let ticket = rounds.requested
        guard !rounds.running else {
            await withCheckedContinuation { rounds.waiters.append((ticket, $0)) }
            return
        }
        rounds.running = true
        // Each pass serves every request made before it began; at most a few passes run.
        for _ in 0..<64 where rounds.done < rounds.requested && !closed {
            let target = rounds.requested
            let planning = rounds.planRequested
            rounds.planRequested = false
            if planning {
                await round()
            } else {
                await claimDue(now: configuration.now(), batched: true)
            }
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
        rounds.planning = true
        rounds.wakeDuringPlan = nil
        defer { rounds.planning = false }
        let records: [QueuePlanner.Slot]
        do {
            records = try await store.activeSlots()
            QueueMetrics.recordDepth(records, now: now)
        } catch {
            client.configuration.logger.error("courier queue: \(error)")
            schedule(at: now.addingTimeInterval(1))
            return
        }
        // A record this worker holds but no longer sends (its result could not be recorded)
        // is abandoned like a dead worker's.
        let plan = QueuePlanner.plan(
            records, now: now, sending: Set(deliveries.keys), unreachable: unreachable.mapValues(\.probeAt), probing: Set(probes.keys),
            isGone: { [worker] holder in holder == worker || QueueWorker.isGone(holder) }, isWatched: QueueWorker.isLocal
        )
        for id in plan.expire {
            if let record = try? await store.expire(id: id, now: now, goneHolders: plan.goneHolders) {
                heldCredentials[id] = nil
                publish(.expired(record))
            }
        }
        for origin in plan.probe {
            guard let url = URL(string: origin) else { continue }
            let probe = ReachabilityProbe(healthURL: configuration.healthURL, timeout: configuration.probeTimeout, client: client)
            let generation = networkGeneration
            probes[origin] = Task { [weak self] in
                let reachable = await probe.check(url)
                await self?.probeEnded(origin: origin, reachable: reachable, generation: generation)
            }
        }
        rounds.goneHolders = plan.goneHolders
        if !plan.send.isEmpty {
            let free = freeSlots
            guard let claimed = await claimDue(now: now, batched: false) else { return }
            // What the plan found due but did not get, another worker claimed between the read
            // and the claim, under a lease this plan never saw. Nothing in the storage changes
            // when that worker dies holding it, so look again, as for a watched holder: the next
            // plan sees the lease and waits it out.
            if claimed < min(plan.send.count, free) { wake(noLaterThan: now.addingTimeInterval(QueuePlanner.watchInterval)) }
        }
        schedule(at: [plan.wakeAt, rounds.wakeDuringPlan].compactMap { $0 }.min())
    }

    /// Claims what is due into the free delivery slots and starts sending it; returns how many
    /// records it claimed, or `nil` when the storage failed (logged, and a plan due within a
    /// second).
    ///
    /// A `batched` claim (after a delivery ends, an enqueue, another worker's change) waits
    /// until ``claimBatch`` slots are free, so that a busy worker does not spend a statement
    /// and a commit on each record it takes; the plan, due within a
    /// ``QueuePlanner/watchInterval``, fills any slot free meanwhile.
    @discardableResult
    private func claimDue(now: Date, batched: Bool) async -> Int? {
        let free = freeSlots
        guard !closed else { return 0 }
        guard free >= (batched ? claimBatch : 1) else {
            if free > 0 { wake(noLaterThan: now.addingTimeInterval(QueuePlanner.watchInterval)) }
            return 0
        }
        let lease = QueueLease(holder: worker, expiresAt: now.addingTimeInterval(configuration.leaseDuration.timeInterval))
        do {
            let claimed = try await store.claim(
                limit: free, lease: lease, now: now, goneHolders: rounds.goneHolders, sending: Array(deliveries.keys),
                skippingOrigins: Array(unreachable.keys)
            )
            for record in claimed where deliveries[record.id] == nil {
                deliveries[record.id] = Task { [weak self] in await self?.deliver(record) }
            }
            // While it delivers, the worker still plans now and then: the depth and age
            // metrics stay current, and expiry and probes are not left to the timer alone.
            if !claimed.isEmpty { wake(noLaterThan: now.addingTimeInterval(QueuePlanner.watchInterval)) }
            return claimed.count
        } catch {
            client.configuration.logger.error("courier queue: \(error)")
            wake(noLaterThan: now.addingTimeInterval(1))
            return nil
        }
    }

    /// The delivery slots not taken by a record this worker sends.
    private var freeSlots: Int { configuration.maximumConcurrentDeliveries - deliveries.count }

    /// The free slots a claim between plans waits for: an eighth of
    /// ``QueueConfiguration/maximumConcurrentDeliveries`` (4 of the default 32), at least one.
    var claimBatch: Int { max(1, configuration.maximumConcurrentDeliveries / 8) }

    /// Plans again at `date` unless a plan is due before it.
    func wake(noLaterThan date: Date?) {
        guard let date else { return }
        if rounds.planning { rounds.wakeDuringPlan = min(rounds.wakeDuringPlan ?? date, date) }
        if let timerAt, timerAt <= date, timer != nil { return }
        schedule(at: date)
    }

    /// Plans again at `date`, replacing the previous timer.
    private func schedule(at date: Date?) {
        timer?.cancel()
        timer = nil
        timerAt = date
        guard let date, !closed, !paused else { return }
        let delay = QueuePlanner.delay(until: date, now: configuration.now())
        let clock = configuration.clock
        timer = Task { [weak self] in
            do { try await clock.sleep(for: delay) } catch { return }
            await self?.timerFired(at: date)
        }
    }

    private func timerFired(at date: Date) async {
        if timerAt == date {
            timer = nil
            timerAt = nil
        }
        await planRound()
    }

    private func probeEnded(origin: String, reachable: Bool, generation: Int) async {
        probes[origin] = nil
        guard !closed else { return }
        if reachable || generation != networkGeneration {
            // Reachable, or found down before the network was said to be back: either way the
            // origin's records are due now.
            unreachable[origin] = nil
            try? await store.makeDue(origin: origin, now: configuration.now())
        } else {
            let failures = (unreachable[origin]?.failures ?? 0) + 1
            let wait = RetryStateMachine(policy: configuration.retryPolicy, attempts: failures).backoff(jitter: Double.random(in: 0.5..<1))
            unreachable[origin] = (configuration.now().addingTimeInterval(wait.timeInterval), failures)
        }
        await planRound()
    }

    /// Sends a record this worker claimed once and records what came of it; a record that
    /// lacks credentials is released unsent, its attempt not counted.
    private func deliver(_ record: QueueRecord) async {
        let id = record.id
        let generation = networkGeneration
        defer { deliveries[id] = nil }
        do {
            let (credentials, sourceFailure) = await resolveCredentials(for: record)
            guard credentials.missing.isEmpty, !closed else {
                if closed {
                    _ = try await store.settle(
                        record, holder: worker, state: .pending, outcome: nil, nextAttemptAt: configuration.now(), countsAttempt: false
                    )
                } else {
                    try await waitForCredentials(record, missing: credentials.missing, sourceFailure: sourceFailure)
                }
                deliveries[id] = nil
                await planRound()
                return
            }
            waitingForCredentials.remove(id)
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
            try await settle(record, response: response, failure: failure, generation: generation)
        } catch {
            client.configuration.logger.error("courier queue: \(error)")
        }
        deliveries[id] = nil
        await claimRound()
    }

    /// Records the attempt's result: final, or pending again with its next attempt time. An
    /// attempt that found its origin unreachable before the network was last said to be back
    /// (`generation` is older) leaves the record due at once and the origin reachable.
    private func settle(
        _ record: QueueRecord, response: CourierResponse?, failure: CourierError?, generation: Int
    ) async throws(CourierError) {
        let now = configuration.now()
        if response == nil && (closed || failure?.kind == .cancelled) {
            // Stopped, not failed: the next queue opened on the database sends it again.
            _ = try await store.settle(record, holder: worker, state: .pending, outcome: nil, nextAttemptAt: now, countsAttempt: true)
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
            guard let updated = try await finish(record, .delivered, outcome), let response else { return }
            publish(.delivered(updated, response))
        case .failed:
            heldCredentials[record.id] = nil
            guard let updated = try await finish(record, .failed, outcome) else { return }
            publish(.failed(updated))
        case .retry(let wait), .unreachable(let wait):
            var next = now.addingTimeInterval(wait.timeInterval)
            let outdated = generation != networkGeneration
            if case .unreachable = decision, outdated { next = now }
            guard let updated = try await finish(record, .pending, outcome, nextAttemptAt: next) else { return }
            wake(noLaterThan: next)
            if case .unreachable = decision, !outdated {
                let failures = (unreachable[record.request.origin]?.failures ?? 0) + 1
                unreachable[record.request.origin] = (next, failures)
            }
            publish(.waiting(updated))
        }
    }

    /// Ends this worker's lease on `record` with `state`; `nil`, logged, when the lease had
    /// ended and another worker claimed the record meanwhile: its attempt is the one that counts.
    private func finish(
        _ record: QueueRecord, _ state: QueueRecord.State, _ outcome: QueueOutcome?, nextAttemptAt: Date? = nil
    ) async throws(CourierError) -> QueueRecord? {
        let updated = try await settleSurvivingOutages(record, state, outcome, nextAttemptAt: nextAttemptAt)
        if updated == nil {
            client.configuration.logger.warning(
                "courier queue: the lease on \(record.id) ended before its attempt did; another worker sends it",
                metadata: ["courier.queue.record": "\(record.id)"]
            )
        }
        return updated
    }

    /// Settles `record`, trying again while the storage fails (a database restarting, a
    /// connection lost) for up to about half a lease: the attempt's result is in hand, and a
    /// record left in flight would be sent again once its lease ended.
    private func settleSurvivingOutages(
        _ record: QueueRecord, _ state: QueueRecord.State, _ outcome: QueueOutcome?, nextAttemptAt: Date?
    ) async throws(CourierError) -> QueueRecord? {
        let clock = configuration.clock
        let patience = configuration.leaseDuration / 2
        var waited = Duration.zero
        var pause = Duration.milliseconds(100)
        while true {
            do {
                return try await store.settle(record, holder: worker, state: state, outcome: outcome, nextAttemptAt: nextAttemptAt, countsAttempt: true)
            } catch  where error.kind == .queueStorage && waited < patience && !closed {
                client.configuration.logger.warning(
                    "courier queue: the result of \(record.id) could not be recorded yet: \(error.message)",
                    metadata: ["courier.queue.record": "\(record.id)"]
                )
                do { try await clock.sleep(for: pause) } catch { throw CourierError(.cancelled, "Recording the result of \(record.id) was cancelled.") }
                waited += pause
                pause = min(pause * 2, .seconds(2))
            }
        }
    }
}
