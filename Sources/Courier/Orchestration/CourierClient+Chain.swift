extension CourierClient {
    /// Runs `chain` until a decision returns ``ChainStep/stop``, and returns every step's
    /// results.
    ///
    /// Cancelling the calling task cancels the step that is running and stops the chain.
    ///
    /// - Throws: ``ChainError`` when a step fails, a decision throws, or the chain is
    ///   cancelled.
    public func run(_ chain: Chain) async throws(ChainError) -> [ChainStepResult] {
        chain.hooks.willStart?()
        let outcome = await steps(of: chain)
        chain.hooks.didStop?(outcome)
        return try outcome.get()
    }

    private func steps(of chain: Chain) async -> Result<[ChainStepResult], ChainError> {
        var history: [ChainStepResult] = []
        while true {
            let step = history.count
            func failure(_ error: any Error) -> Result<[ChainStepResult], ChainError> {
                .failure(ChainError(step: step, error: error, history: history))
            }
            if Task.isCancelled {
                return failure(CourierError(.cancelled, "The chain was cancelled before step \(step)."))
            }
            let next: ChainStep
            do {
                next = try await chain.decide(history)
            } catch {
                return failure(error)
            }
            guard case .send(let batch) = next.action else { return .success(history) }
            do {
                let results = try await run(batch)
                history.append(ChainStepResult(step: step, results: results))
            } catch let error as BatchError {
                return failure(error.error)
            } catch {
                return failure(error)
            }
        }
    }
}
