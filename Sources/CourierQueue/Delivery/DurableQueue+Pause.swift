import Courier

extension DurableQueue {
    /// Stops starting deliveries, and returns once those under way have ended and their
    /// results are recorded: call it when the app moves to the background, so that nothing
    /// starts that the system may suspend half way.
    ///
    /// A paused queue still takes ``enqueue(_:)`` (the record is written and waits) and answers
    /// every question about its records; ``resume()`` or ``run(deadline:)`` starts delivering
    /// again; a pause still waiting then returns once the delivery it waits for has ended. To send what waits before pausing, call ``run(deadline:)`` with the time the
    /// system grants first (see <doc:OfflineQueue>).
    public func pause() async {
        guard !closed else { return }
        paused = true
        timer?.cancel()
        timer = nil
        timerAt = nil
        // A round claiming now starts its deliveries before the wait below sees them.
        if rounds.running { await withCheckedContinuation { rounds.waiters.append((rounds.requested + 1, $0)) } }
        // Unless resume() came meanwhile: then the deliveries it starts are not waited for.
        while paused, let delivery = deliveries.values.first {
            await delivery.value
        }
    }

    /// Starts delivering again after ``pause()``: what became due meanwhile is sent now.
    public func resume() async {
        guard !closed, paused else { return }
        paused = false
        if delivering { await planRound() }
    }

    /// Whether ``pause()`` stopped deliveries and nothing resumed them since.
    public var isPaused: Bool { paused }
}
