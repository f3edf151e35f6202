/// Runs pieces of synchronous work one at a time, in the order they asked, with the tasks
/// waiting for their turn suspended rather than blocking their threads.
///
/// The command-line parser must not run on several threads at once, and the tests run many
/// command lines in one process: a lock there would hold every thread of the shared pool
/// while one command line is parsed, and every other task of the process would wait.
actor Turns {
    private var isBusy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `work` once no other turn is running, and returns what it returns.
    nonisolated(nonsending) func take<T>(_ work: () throws -> T) async rethrows -> T {
        await begin()
        do {
            let value = try work()
            await end()
            return value
        } catch {
            await end()
            throw error
        }
    }

    private func begin() async {
        guard isBusy else {
            isBusy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the turn to the task that has waited longest, or frees it.
    private func end() {
        if waiting.isEmpty {
            isBusy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
